import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, type CliProcess } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { apiEnv, feedIds, jsonLines, scratchDir, waitForJsonLines, waitUntil, stopAll } from '../helpers/feed.js';
import { orderAction, readAllEvents, seedMenu, simulate } from '../helpers/orders.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let emu: TestEmulator;
let scratch: ReturnType<typeof scratchDir>;
const running: CliProcess[] = [];
const receivers: Receiver[] = [];

// One emulator for the file, reset before each test (its credentials stay valid; limits are off, so
// no rate window carries over): a start per test cost more than the test's own calls.
beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator({ limits: false });
});
afterAll(() => emu?.close());
beforeEach(async () => {
  expect((await emu.control('POST', '/reset')).status).toBe(200);
  scratch = scratchDir();
  await seedMenu(emu);
});
afterEach(async () => {
  await stopAll(running, receivers);
  scratch.cleanup();
});

function tail(args: string[], extra: NodeJS.ProcessEnv = {}): CliProcess {
  const cli = runCli(['feed', 'tail', ...args], apiEnv(emu, scratch.dir, extra));
  running.push(cli);
  return cli;
}

async function orders(n: number): Promise<any[]> {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await simulate(emu));
  return out;
}

async function app(): Promise<Receiver> {
  const rx = await startReceiver('/events');
  receivers.push(rx);
  return rx;
}

const cursorFile = () => join(scratch.dir, 'feed.cursor');

describe('merchant-kit feed tail', () => {
  it('prints every event as one JSON line, draining has_more pages at once instead of waiting the interval', async () => {
    await orders(230);
    const ids = await feedIds(emu);
    expect(ids.length).toBeGreaterThan(200);
    // An interval of an hour: a tail that waited it between the two pages of 200 would never print them all.
    const cli = tail(['--json', '--interval', '3600']);
    const lines = await waitForJsonLines(cli, ids.length);
    expect(lines.map((e) => e.id)).toEqual(ids);
    expect(lines[1]).toMatchObject({ type: 'order.created', api_version: '1.0', data: { order: { id: expect.stringMatching(/^ord_/) } } });
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
  });

  it('prints one human line per event with time, type, event id and order id (status)', async () => {
    const [order] = await orders(1);
    const cli = tail(['--once']);
    expect((await cli.exited).code).toBe(0);
    expect(cli.lines.at(-1)).toMatch(new RegExp(`^\\S+T\\S+  order\\.created  evt_\\w+  ${order.id} \\(pending\\)$`));
  });

  it('polls every --interval seconds and picks up new events', async () => {
    await orders(1);
    const cli = tail(['--json', '--interval', '0.2']);
    const before = await waitForJsonLines(cli, 2);
    const [late] = await orders(1);
    const after = await waitForJsonLines(cli, before.length + 1);
    expect(after.at(-1).data.order.id).toBe(late.id);
  });

  it('--types passes the filter to the feed; an unknown type exits 2 before any call', async () => {
    const [order] = await orders(1);
    await emu.control('POST', `/orders/${order.id}/status`, { status: 'accepted', by: 'store_user' });
    const cli = tail(['--json', '--once', '--types', 'order.status_changed']);
    expect((await cli.exited).code).toBe(0);
    expect(jsonLines(cli).map((e) => e.type)).toEqual(['order.status_changed']);
    const bad = tail(['--once', '--types', 'order.created,order.nope']);
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toContain('order.nope');
  });

  it("skips the integration's own status changes unless --include-own", async () => {
    const [mine, theirs] = await orders(2);
    expect((await orderAction(emu, mine.id, 'status', { status: 'accepted' })).status).toBe(200);
    expect((await emu.control('POST', `/orders/${theirs.id}/status`, { status: 'accepted', by: 'store_user' })).status).toBe(200);
    const changes = (cli: CliProcess) => jsonLines(cli).filter((e) => e.type === 'order.status_changed').map((e) => e.data.order.id);
    const plain = tail(['--json', '--once']);
    expect((await plain.exited).code).toBe(0);
    expect(changes(plain)).toEqual([theirs.id]);
    const all = tail(['--json', '--once', '--include-own']);
    expect((await all.exited).code).toBe(0);
    expect(changes(all)).toEqual([mine.id, theirs.id]);
  });

  it('continues exactly at the saved cursor after SIGTERM: no duplicates, no gaps', async () => {
    await orders(12);
    const rx = await app();
    rx.behave = () => ({ status: 200, delayMs: 40 });
    const first = tail(['--forward-to', rx.url, '--cursor-file', cursorFile(), '--interval', '0.5']);
    await rx.waitFor(5);
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    const stoppedAt = rx.received.length;
    expect(stoppedAt).toBeLessThan((await feedIds(emu)).length);
    await orders(3);
    const all = await feedIds(emu);
    const second = tail(['--forward-to', rx.url, '--cursor-file', cursorFile(), '--interval', '0.5']);
    await rx.waitFor(all.length);
    // Once it has stopped, nothing more can arrive: what the app got is all it will get.
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(rx.received.map((r) => r.headers['x-service-event-id'])).toEqual(all);
    expect(JSON.parse(rx.received[0].body).id).toBe(all[0]);
  });

  it('after a SIGKILL in the middle of forwarding, a restart loses nothing and repeats at most the one event in flight', async () => {
    await orders(10);
    const all = await feedIds(emu);
    const rx = await app();
    rx.behave = () => ({ status: 200, delayMs: 50 });
    const first = tail(['--forward-to', rx.url, '--cursor-file', cursorFile(), '--interval', '0.5']);
    await rx.waitFor(4);
    first.child.kill('SIGKILL');
    await first.exited;
    const taken = rx.received.length;
    tail(['--forward-to', rx.url, '--cursor-file', cursorFile(), '--interval', '0.5']);
    await waitUntil(() => new Set(rx.received.map((r) => r.headers['x-service-event-id'])).size === all.length, () => `app got ${rx.received.length}`);
    const ids = rx.received.map((r) => r.headers['x-service-event-id']);
    expect([...new Set(ids)]).toEqual(all);
    expect(ids.length - all.length).toBeLessThanOrEqual(1);
    expect(taken).toBeLessThan(all.length);
  });

  it('forwards the raw event JSON; an app that fails then recovers gets every event, in order, none skipped', async () => {
    await orders(4);
    const all = await feedIds(emu);
    const rx = await app();
    rx.behave = (_req, n) => ({ status: n < 3 ? 503 : 200 });
    // The backoff between attempts is capped at the interval: 0.2 s, so the three failures cost little time.
    const cli = tail(['--forward-to', rx.url, '--cursor-file', cursorFile(), '--interval', '0.2']);
    await rx.waitFor(all.length + 3);
    const taken = rx.received.slice(3).map((r) => r.headers['x-service-event-id']);
    expect(taken).toEqual(all);
    // The failed attempts were all of the first event: the cursor never moved past it.
    expect(rx.received.slice(0, 3).map((r) => r.headers['x-service-event-id'])).toEqual([all[0], all[0], all[0]]);
    expect(rx.received[3].headers['content-type']).toBe('application/json');
    expect(JSON.parse(rx.received[3].body)).toMatchObject({ id: all[0], api_version: '1.0' });
    expect(cli.stderr()).toContain('answered 503');
    cli.child.kill('SIGINT');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    const saved = JSON.parse(readFileSync(cursorFile(), 'utf8'));
    expect(saved).toMatchObject({ version: 1, integration_id: emu.test.integration_id, page_done: [] });
    expect(saved.cursor).toEqual(expect.any(String));
  });

  // issue 14: forwarding used to print nothing on stdout; now a line per event the app took.
  it('--forward-to prints one line per event the app took (time in the event\'s offset, type, id, order, → status); --json one object each', async () => {
    await orders(2);
    const events = await readAllEvents(emu);
    const all = events.map((e) => e.id);
    const rx = await app();
    rx.behave = (_req, n) => ({ status: n < 1 ? 503 : 202 });
    const human = tail(['--forward-to', rx.url, '--once', '--interval', '0.2', '--cursor-file', join(scratch.dir, 'human.cursor')]);
    expect((await human.exited).code, human.stderr()).toBe(0);
    expect(human.lines).toHaveLength(all.length);
    human.lines.forEach((line, i) => {
      const order = events[i].data.order ? `  ${events[i].data.order.id} \\(pending\\)` : '';
      expect(line).toMatch(new RegExp(`^${events[i].created_at}  ${events[i].type}  ${all[i]}${order}  → 202$`));
    });
    expect(human.lines.filter((l) => l.includes('order.created'))).toHaveLength(2);
    // The retry of the first event went to stderr, not to stdout.
    expect(human.stderr()).toContain('answered 503');
    const json = tail(['--forward-to', rx.url, '--once', '--json', '--cursor-file', join(scratch.dir, 'json.cursor')]);
    expect((await json.exited).code, json.stderr()).toBe(0);
    expect(jsonLines(json)).toEqual(events.map((e) => ({
      event_id: e.id, type: e.type, created_at: e.created_at, order_id: e.data.order?.id ?? null, forwarded_status: 202, attempts: 1,
    })));
  });

  it('on cursor_expired says so and reconciles with GET /orders?updated_since, then reads on', async () => {
    const [old] = await orders(1);
    await emu.control('POST', '/clock/advance', { seconds: 60 });
    const [changed] = await orders(1);
    const first = tail(['--json', '--once', '--cursor-file', cursorFile()]);
    expect((await first.exited).code, first.stderr()).toBe(0);
    expect((await emu.control('POST', '/clock/advance', { seconds: 31 * 24 * 3600 })).status).toBe(200);
    await emu.control('POST', `/orders/${changed.id}/status`, { status: 'cancelled', reason: 'Cliente se arrepintió', by: 'customer' });
    const second = tail(['--json', '--once', '--cursor-file', cursorFile()]);
    expect((await second.exited).code).toBe(0);
    expect(second.stderr()).toMatch(/cursor expired .*GET \/orders\?updated_since=/);
    const lines = jsonLines(second);
    const reconciled = lines.filter((l) => l.type === 'order.reconciled');
    expect(reconciled.map((l) => l.data.order.id)).toEqual([changed.id]);
    expect(reconciled[0].data.order.status).toBe('cancelled');
    expect(lines.map((l) => l.data.order.id)).not.toContain(old.id);
    // Then the feed from its oldest available event: the cancellation.
    expect(lines.filter((l) => l.type !== 'order.reconciled').map((l) => l.type)).toEqual(['order.status_changed']);
    const third = tail(['--json', '--once', '--cursor-file', cursorFile()]);
    expect((await third.exited).code).toBe(0);
    expect(third.lines).toEqual([]);
    expect(third.stderr()).not.toContain('expired');
  });

  it('exits 1 with one line when the cursor file cannot be written, and reads nothing', async () => {
    await orders(1);
    writeFileSync(join(scratch.dir, 'a-file'), 'x');
    const cli = tail(['--json', '--cursor-file', join(scratch.dir, 'a-file', 'feed.cursor')]);
    expect((await cli.exited).code).toBe(1);
    expect(cli.lines).toEqual([]);
    expect(cli.stderr().trim().split('\n')).toHaveLength(1);
    expect(cli.stderr()).toMatch(/Cannot write the cursor file .*a-file.*\((ENOTDIR|EEXIST)\)/);
  });

  it('exits 1 with one line for a cursor file that is not one', async () => {
    writeFileSync(cursorFile(), 'not json');
    const cli = tail(['--once', '--cursor-file', cursorFile()]);
    expect((await cli.exited).code).toBe(1);
    expect(cli.stderr().trim().split('\n')).toHaveLength(1);
    expect(readFileSync(cursorFile(), 'utf8')).toBe('not json');
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('exits 0 on %s while waiting for the next poll', async (signal) => {
    await orders(1);
    const cli = tail(['--json', '--interval', '30', '--cursor-file', cursorFile()]);
    await waitForJsonLines(cli, 2);
    await waitUntil(() => JSON.parse(readFileSync(cursorFile(), 'utf8')).cursor !== null, () => 'cursor saved');
    cli.child.kill(signal);
    expect(await cli.exited).toEqual({ code: 0, signal: null });
  });

  it('exits 1 with the API error line when the credential is refused', async () => {
    const cli = tail(['--once'], { MERCHANT_KIT_CREDENTIAL: 'svk_test_AAAAAAAAAAAAAAAAAAAAAAAAAA.svs_test_BBBBBBBBBBBBBBBBBBBBBBBBBB' });
    expect((await cli.exited).code).toBe(1);
    expect(cli.stderr()).toMatch(/401 unauthenticated.*request_id req_/);
    expect(cli.stderr()).not.toContain('svs_test_BBBB');
  });
});
