import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_LOG_SIZE } from '../../../src/contract/control.js';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { controlCall } from '../../helpers/tokens.js';

// Issue 24 (medium 3): a store token stalled every tenant through the request log's path filter.
// 1,100 requests with 2 KB paths filled the log; `GET /_emulator/logs?path=<500-character glob>`
// then took 4.5 s of event loop, and four at once made another tenant's GET /me wait 20 s. The log
// keeps paths short and one read does a bounded amount of matching.

const ADMIN = 'admin-token-del-registro-de-pedidos';
const LONG = 2_000;
let emu: TestEmulator;
let token: string;
let credential: string;

beforeAll(async () => {
  // Limits off: the log fills in seconds (with them, the 429s past 120 a minute are logged as well).
  emu = await startTestEmulator({ adminToken: ADMIN, limits: false });
  const made = (await controlCall(emu, 'POST', '/stores', ADMIN, { environment: 'test' })).body.data;
  token = made.store_token;
  credential = made.credential;
  const path = `/orders/${'a'.repeat(LONG)}`;
  for (let sent = 0; sent < REQUEST_LOG_SIZE + 100; sent += 50) {
    await Promise.all(Array.from({ length: 50 }, () => emu.api('GET', path, { credential })));
  }
}, 300_000);
afterAll(() => emu?.close());

/** A glob that keeps every step of the matcher alive over a path of `a`s: `/**a**a…**a!`, 500 characters. */
const HEAVY_GLOB = `/${'**a'.repeat(166)}!`;

describe('the request log and its readers', () => {
  it('keeps a logged path to 256 characters', async () => {
    const { entries } = (await controlCall(emu, 'GET', '/logs?tail=3', token)).body.data;
    expect(entries).toHaveLength(3);
    for (const entry of entries) {
      expect(entry.path.length).toBeLessThanOrEqual(256);
      expect(entry.path.startsWith('/sandbox/v1/orders/aaaa')).toBe(true);
    }
  });

  it('ends a read whose matching reached its bound early, with the entry to go on from', async () => {
    expect(HEAVY_GLOB.length).toBe(500);
    const res = await controlCall(emu, 'GET', `/logs?after=0&limit=1000&path=${encodeURIComponent(HEAVY_GLOB)}`, token);
    expect(res.status).toBe(200);
    const newest = (await controlCall(emu, 'GET', '/logs?tail=0', token)).body.data.next_after;
    expect(res.body.data.next_after).toBeLessThan(newest);
    // Paging on from there reads the rest, one bounded page at a time.
    const next = await controlCall(emu, 'GET', `/logs?after=${res.body.data.next_after}&limit=1000&path=${encodeURIComponent(HEAVY_GLOB)}`, token);
    expect(next.body.data.next_after).toBeGreaterThan(res.body.data.next_after);
  });

  it('answers four heavy reads at once without holding the event loop for another tenant (under 1 s of CPU in all)', async () => {
    // The emulator runs in this process: the CPU it spends on the five requests bounds how long any
    // one of them can hold its event loop. (The loop's delays themselves grow with the machine's load.)
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const cpu0 = process.cpuUsage();
    const reads = Array.from({ length: 4 }, () => controlCall(emu, 'GET', `/logs?tail=1000&path=${encodeURIComponent(HEAVY_GLOB)}`, token));
    const other = emu.api('GET', '/me');
    const answers = await Promise.all([...reads, other]);
    const cpu = process.cpuUsage(cpu0);
    delay.disable();
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    // Before, each read held the loop about 4.5 s of CPU; now one read is a few milliseconds of matching.
    expect((cpu.user + cpu.system) / 1000, `the event loop's longest delay was ${Math.round(delay.max / 1e6)} ms`).toBeLessThan(1_000);
  }, 300_000);
});
