import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_LOG_SIZE } from '../../../src/contract/control.js';
import { request, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { requestLogOf } from '../../../emulator/http/request-log.js';
import { waitFor } from '../../helpers/wait.js';

// GET /_emulator/logs: the emulator's request log (what `emulator logs tail` reads).

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterEach(() => emu.control('DELETE', '/faults'));
afterAll(() => emu.close());

/** How many long polls wait for the request log's next entry now (the log's own count: no request shows it). */
const logWaiters = () => (requestLogOf(emu.running.emulator) as unknown as { waiters: Set<unknown> }).waiters.size;

/** The id of the newest entry: where a reader that wants only what comes next starts. */
async function newest(): Promise<number> {
  return (await emu.control('GET', '/logs?tail=0')).body.data.next_after;
}

async function logsAfter(after: number, query = ''): Promise<any> {
  const res = await emu.control('GET', `/logs?after=${after}${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

describe('GET /_emulator/logs', () => {
  it('records each API request with method, path, status, request id, duration, integration and store, never a body or header', async () => {
    const start = await newest();
    const me = await emu.api('GET', '/me?x=1');
    const page = await logsAfter(start);
    expect(page.entries).toHaveLength(1);
    const [entry] = page.entries;
    expect(entry).toEqual({
      id: start + 1,
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-03:00$/),
      environment: 'test',
      method: 'GET',
      path: '/sandbox/v1/me',
      status: 200,
      error_code: null,
      request_id: me.headers.get('x-request-id'),
      duration_ms: expect.any(Number),
      integration_id: emu.test.integration_id,
      store_id: emu.test.store_id,
    });
    expect(page.next_after).toBe(start + 1);
    expect(JSON.stringify(page)).not.toMatch(/svs_|authorization/i);
  });

  it('records refusals with their error code: a wrong credential, an unknown route, a path not valid percent-encoding, an injected fault, the live API', async () => {
    const start = await newest();
    await emu.api('GET', '/store', { credential: 'svk_test_nope.svs_test_nopenopenope' });
    await emu.api('GET', '/nowhere');
    await emu.api('GET', '/orders/%zz');
    await emu.control('POST', '/faults', { path: '/sandbox/v1/orders', status: 503 });
    await emu.api('GET', '/orders');
    await emu.liveApi('GET', '/me');
    const { entries } = await logsAfter(start);
    expect(entries.map((e: any) => [e.environment, e.path, e.status, e.error_code])).toEqual([
      ['test', '/sandbox/v1/store', 401, 'unauthenticated'],
      ['test', '/sandbox/v1/nowhere', 404, 'not_found'],
      ['test', '/sandbox/v1/orders/%zz', 404, 'not_found'],
      ['test', '/sandbox/v1/orders', 503, 'maintenance'],
      ['live', '/v1/me', 200, null],
    ]);
    expect(entries[0].integration_id).toBeNull();
  });

  it('leaves the control API, the panel and the root out', async () => {
    const start = await newest();
    await emu.control('GET', '/state');
    await request(`${emu.url}/_emulator/panel`, 'GET');
    await request(`${emu.url}/`, 'GET');
    expect((await logsAfter(start)).entries).toEqual([]);
  });

  it('filters by status (exact statuses and classes) and by a path glob', async () => {
    const start = await newest();
    await emu.api('GET', '/me');
    await emu.api('GET', '/nowhere');
    await emu.control('POST', '/faults', { path: '/sandbox/v1/store', status: 409, code: 'request_in_progress' });
    await emu.api('GET', '/store');
    await emu.control('POST', '/faults', { path: '/sandbox/v1/store', status: 500 });
    await emu.api('GET', '/store');
    const statuses = (page: any) => page.entries.map((e: any) => e.status);
    expect(statuses(await logsAfter(start, '&status=4xx'))).toEqual([404, 409]);
    expect(statuses(await logsAfter(start, '&status=409,5xx'))).toEqual([409, 500]);
    expect(statuses(await logsAfter(start, `&path=${encodeURIComponent('/sandbox/v1/st*')}`))).toEqual([409, 500]);
    // A filtered page still moves the reader past what it skipped.
    expect((await logsAfter(start, '&status=201')).next_after).toBe(start + 4);
  });

  it('tail=N gives the newest N matching entries, oldest first', async () => {
    await emu.api('GET', '/me');
    await emu.api('GET', '/store');
    await emu.api('GET', '/orders');
    const { entries, next_after } = (await emu.control('GET', '/logs?tail=2')).body.data;
    expect(entries.map((e: any) => e.path)).toEqual(['/sandbox/v1/store', '/sandbox/v1/orders']);
    expect(next_after).toBe(entries[1].id);
  });

  it('with wait_ms answers as soon as a matching request arrives', async () => {
    const start = await newest();
    let answered = false;
    const waiting = emu.control('GET', `/logs?after=${start}&wait_ms=30000&status=2xx`).finally(() => (answered = true));
    // Each time, the long poll is waiting for the log's next entry (or has answered: then it did not wait).
    const waitingAgain = async () => {
      await waitFor(() => answered || logWaiters() > 0, () => 'the long poll to wait for the next entry');
      expect(answered).toBe(false);
    };
    await waitingAgain();
    await emu.api('GET', '/nowhere'); // not a match: the wait goes on
    await waitingAgain();
    const began = Date.now();
    await emu.api('GET', '/me');
    const res = await waiting;
    expect(res.body.data.entries.map((e: any) => e.path)).toEqual(['/sandbox/v1/me']);
    // Answered by the match, not by the 30 s limit (the bound halfway between them).
    expect(Date.now() - began).toBeLessThan(15_000);
  });

  it('with wait_ms and nothing new answers an empty page once the time is up', async () => {
    const start = await newest();
    const began = Date.now();
    const { entries, next_after } = (await emu.control('GET', `/logs?after=${start}&wait_ms=300`)).body.data;
    expect(entries).toEqual([]);
    expect(next_after).toBe(start);
    expect(Date.now() - began).toBeGreaterThanOrEqual(250);
  });

  it(`keeps the last ${REQUEST_LOG_SIZE} requests and says how many a reader missed`, async () => {
    const start = await newest();
    const extra = 5;
    for (let i = 0; i < REQUEST_LOG_SIZE + extra; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, REQUEST_LOG_SIZE + extra - i) }, () => emu.api('GET', '/nowhere', { credential: null })));
    }
    const page = await logsAfter(start, `&limit=${REQUEST_LOG_SIZE}`);
    expect(page.missed).toBe(extra);
    expect(page.entries).toHaveLength(REQUEST_LOG_SIZE);
    expect(page.entries[0].id).toBe(start + extra + 1);
  });

  it('refuses a bad query with 422 and a detail per field', async () => {
    const res = await emu.control('GET', '/logs?status=4yy&limit=0&wait_ms=x&nope=1');
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: any) => d.field).sort()).toEqual(['limit', 'nope', 'status.0', 'wait_ms']);
    const both = await emu.control('GET', '/logs?after=1&tail=2');
    expect(both.status).toBe(422);
    expect(both.body.error.details.map((d: any) => d.field)).toEqual(['tail']);
  });
});

describe('GET /', () => {
  it('redirects to the merchant panel', async () => {
    const res = await fetch(`${emu.url}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/_emulator/panel');
  });
});
