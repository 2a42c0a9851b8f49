import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/errors.js';
import type { CallOptions, ResponseInfo } from '../../src/client/types.js';
import { EvidenceLog } from '../../checks/internal/evidence.js';

const info = (status: number, path: string): ResponseInfo => ({
  endpointId: 'getMe', method: 'GET', path, status, requestId: null, replayed: false, attempt: 1, idempotencyKey: null, durationMs: 3, headers: {},
});

/** A call that gets an HTTP answer and then fails (or not) as the client would. */
const answered = (status: number, path: string, error?: ApiError) => async (o: CallOptions) => {
  await new Promise((r) => setTimeout(r, 1));
  o.onResponse?.(info(status, path));
  if (error) throw error;
  return {};
};

describe('EvidenceLog: each HTTP answer as evidence', () => {
  it('marks a 200 whose body is not the API\'s as a failed step, naming the problem', async () => {
    const log = new EvidenceLog();
    const r = await log.call('GET /me', answered(200, '/me', new ApiError({ status: 200, code: 'invalid_response', message: 'the answer is not JSON' })));
    expect(r.ok).toBe(false);
    expect(log.items).toEqual([expect.objectContaining({ step: 'GET /me', ok: false, status: 200, actual: expect.stringContaining('invalid_response') })]);
  });

  it('keeps a good answer good and a refused one refused', async () => {
    const log = new EvidenceLog();
    await log.call('ok', answered(200, '/a'));
    await log.call('refused', answered(409, '/b', new ApiError({ status: 409, code: 'external_id_conflict', message: 'x' })));
    expect(log.items.map((e) => [e.step, e.ok, e.status])).toEqual([['ok', true, 200], ['refused', false, 409]]);
  });

  it('marks the failed call\'s own answer when two calls run side by side', async () => {
    const log = new EvidenceLog();
    const slow = async (o: CallOptions) => {
      await new Promise((r) => setTimeout(r, 1));
      o.onResponse?.(info(200, '/garbage'));
      await new Promise((r) => setTimeout(r, 30));
      throw new ApiError({ status: 200, code: 'invalid_response', message: 'not JSON' });
    };
    const fast = async (o: CallOptions) => {
      await new Promise((r) => setTimeout(r, 10));
      o.onResponse?.(info(200, '/good'));
      return {};
    };
    await Promise.all([log.call('garbage', slow), log.call('good', fast)]);
    expect(Object.fromEntries(log.items.map((e) => [e.step, e.ok]))).toEqual({ garbage: false, good: true });
  });
});
