import { describe, expect, it } from 'vitest';
import { clockAwareRetries, referenceStore } from '../../src/cli/commands/homologate/reference-store.js';
import type { Progress } from '../../src/cli/commands/homologate/progress.js';
import type { CliContext } from '../../src/cli/context.js';
import type { EmulatorControl, RetryInfo } from '../../src/client/index.js';
import { ApiError } from '../../src/client/errors.js';

// The reference integrator's own store and its retries under a manual clock, with the control API
// played by a stub (the end-to-end runs are in homologate.test.ts and homologate-faults.test.ts).

const said: string[] = [];
const progress = { say: (line: string) => void said.push(line) } as unknown as Progress;
const retry = (status: number, path: string): RetryInfo => ({ endpointId: 'x', method: 'POST', path, retry: 1, delayMs: 0, error: new ApiError({ status, code: status === 429 ? 'rate_limited' : 'maintenance', message: 'no' }), idempotencyKey: 'k' });

describe('homologate: the reference integrator\'s own store', () => {
  it('stops with what to do when the emulator will not make its store, rather than use the developer\'s integration', async () => {
    const control = { createStore: () => Promise.reject(new ApiError({ status: 401, code: 'unauthorized', message: 'Falta el token de administración.' })) } as unknown as EmulatorControl;
    const cli = { environment: 'test', baseUrl: 'http://127.0.0.1:4010/sandbox/v1', client: () => { throw new Error('the developer\'s client must not be used'); } } as unknown as CliContext;
    await expect(referenceStore(cli, control, 'abc123', progress, {})).rejects.toThrow(
      /^homologate: the emulator refused to make the reference integrator's own store \(POST \/_emulator\/stores\): .*An emulator started with --admin-token needs that token \(--admin-token or MERCHANT_KIT_ADMIN_TOKEN\)/,
    );
  });
});

describe('homologate: retries under a manual clock', () => {
  it('advances the clock by Retry-After for a 429 and waits at most 1 s; waits as usual for a 5xx and for the 429 it armed', async () => {
    const advanced: number[] = [];
    const control = { advanceClock: async (s: number) => void advanced.push(s) } as unknown as EmulatorControl;
    const { onRetry, sleep } = clockAwareRetries(control, progress, { armedFaults: new Set(['/orders/ord_armed/status']) });
    const waited = async (info: RetryInfo, ms: number) => {
      const t = performance.now();
      onRetry!(info);
      await sleep!(ms);
      return performance.now() - t;
    };
    expect(await waited(retry(429, '/catalog/batch?x=1'), 30_000)).toBeLessThan(1_500);
    expect(advanced).toEqual([30]);
    expect(said.at(-1)).toBe('note: POST /catalog/batch answered 429 (rate limited). The emulator runs a manual clock, so the rate window ends only when its clock moves (merchant-kit emulator clock advance 30s, or POST /_emulator/clock/advance {"seconds": 30}): advancing it 30 s and retrying.');
    expect(await waited(retry(429, '/orders/ord_armed/status'), 200)).toBeGreaterThanOrEqual(190);
    expect(await waited(retry(503, '/orders/ord_x/ack'), 200)).toBeGreaterThanOrEqual(190);
    expect(advanced).toEqual([30]);
  });
});
