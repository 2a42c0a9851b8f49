import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { signatureHeader, verify } from '../../src/webhooks/index.js';
import { ensureBuilt, runCli, type CliProcess } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { apiEnv, feedIds, scratchDir, waitUntil, stopAll } from '../helpers/feed.js';
import { orderAction, seedMenu, simulate } from '../helpers/orders.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const DEAD_URL = 'http://127.0.0.1:9/webhooks';

beforeAll(ensureBuilt);

/**
 * A test's own emulator (in this process: a start costs milliseconds), scratch folder, app and
 * listeners, gone when the test ends. The tests share nothing and most of their time is a listener
 * starting or waiting on the app: they run at once (issue 27).
 */
async function fresh({ onTestFinished }: TestContext) {
  const emu = await startTestEmulator({ limits: false });
  const scratch = scratchDir();
  const running: CliProcess[] = [];
  // A webhook whose deliveries fail: every event is in the feed, none reached the listener.
  const res = await emu.api('PUT', '/webhook', { body: { url: DEAD_URL, events: ['*'] } });
  const secret: string = res.body.data.signing_secret;
  const app: Receiver = await startReceiver('/app/hook');
  onTestFinished(async () => {
    await stopAll(running);
    await app.close();
    await emu.close();
    scratch.cleanup();
  });
  await seedMenu(emu);

  const cursorFile = () => join(scratch.dir, 'listen.cursor');

  async function listen(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ cli: CliProcess; url: string; ready: any }> {
    const cli = runCli(['listen', '--json', '--port', '0', ...args], apiEnv(emu, scratch.dir, { MERCHANT_KIT_WEBHOOK_SECRET: secret, ...extra }));
    running.push(cli);
    const ready = JSON.parse(await cli.firstLine);
    expect(ready.event).toBe('ready');
    return { cli, url: ready.url, ready };
  }

  const backfill = (more: string[] = []) => ['--backfill', '--forward-to', app.url, '--cursor-file', cursorFile(), ...more];
  const forwardedIds = () => app.received.map((r) => r.headers['x-service-event-id'] as string);

  /** Points the webhook at `url` and delivers every pending and failed delivery there now. */
  async function deliverTo(url: string): Promise<void> {
    expect((await emu.api('PUT', '/webhook', { body: { url, events: ['*'] } })).status).toBe(200);
    await emu.control('POST', '/clock/advance', { seconds: 3600 });
    await emu.control('POST', '/webhooks/drain');
  }

  return { emu, scratch, secret, app, running, cursorFile, listen, backfill, forwardedIds, deliverTo };
}

async function stop(cli: CliProcess): Promise<void> {
  cli.child.kill('SIGTERM');
  expect(await cli.exited).toEqual({ code: 0, signal: null });
}

describe.concurrent('merchant-kit listen --backfill', () => {
  it('forwards every event that missed the webhook once, signed like a delivery; later webhook deliveries of them are duplicates', async (t) => {
    const { emu, secret, app, listen, backfill, forwardedIds, deliverTo } = await fresh(t);
    await simulate(emu);
    await simulate(emu);
    const ids = await feedIds(emu);
    const { cli, url } = await listen(backfill(['--reconcile-interval', '60']));
    await app.waitFor(ids.length);
    expect(forwardedIds()).toEqual(ids);
    for (const got of app.received) {
      expect(got.headers['x-merchant-kit-source']).toBe('feed');
      expect(verify({ signature: got.headers['x-service-signature'] as string, timestamp: got.headers['x-service-timestamp'] as string, rawBody: got.body, secrets: secret })).toEqual({ ok: true });
      expect(JSON.parse(got.body).id).toBe(got.headers['x-service-event-id']);
    }
    await deliverTo(url);
    await waitUntil(() => cli.lines.filter((l) => l.includes('"duplicate":true')).length >= ids.length, () => cli.lines.join('\n'));
    expect(forwardedIds()).toEqual(ids);
  });

  it('never forwards an event twice across restarts, even when stopped in the middle of the feed', async (t) => {
    const { emu, app, listen, backfill, forwardedIds, deliverTo } = await fresh(t);
    for (let i = 0; i < 8; i++) await simulate(emu);
    const ids = await feedIds(emu);
    app.behave = () => ({ status: 200, delayMs: 60 });
    const first = await listen(backfill());
    await app.waitFor(3);
    await stop(first.cli);
    expect(forwardedIds().length).toBeLessThan(ids.length);
    const second = await listen(backfill());
    await app.waitFor(ids.length);
    await stop(second.cli);
    // A third start with nothing new forwards nothing; a new event arrives once by webhook.
    const third = await listen(backfill());
    const order = await simulate(emu);
    await deliverTo(third.url);
    await waitUntil(() => app.received.length > ids.length, () => `app got ${app.received.length}`);
    // The drain has had every answer; once the listener has stopped, nothing more can reach the app.
    await stop(third.cli);
    const all = await feedIds(emu);
    expect(forwardedIds()).toEqual(all);
    expect(JSON.parse(app.received.at(-1)!.body).data.order.id).toBe(order.id);
    expect(new Set(forwardedIds()).size).toBe(forwardedIds().length);
  });

  it('reconciles from the feed every --reconcile-interval seconds: an event whose delivery failed reaches the app', async (t) => {
    const { emu, app, listen, backfill } = await fresh(t);
    const { cli } = await listen(backfill(['--reconcile-interval', '1']));
    const before = (await feedIds(emu)).length;
    await app.waitFor(before);
    const order = await simulate(emu);
    await emu.control('POST', '/webhooks/drain'); // the delivery to the dead URL fails
    await app.waitFor(before + 1);
    const got = JSON.parse(app.received.at(-1)!.body);
    expect(got).toMatchObject({ type: 'order.created', data: { order: { id: order.id } } });
    const find = () => cli.lines.map((l) => JSON.parse(l)).find((l) => l.event_id === got.id);
    await waitUntil(() => find() !== undefined, () => cli.lines.join('\n'));
    const line = find();
    expect(line).toMatchObject({ backfill: true, forwarded_status: 200, delivery_id: null });
  });

  it('after more than 30 days off (cursor_expired) says so and forwards the orders changed since, signed, then reads on', async (t) => {
    const { emu, secret, app, listen, backfill } = await fresh(t);
    const first = await listen(backfill());
    await app.waitFor((await feedIds(emu)).length);
    await stop(first.cli);
    app.received.length = 0;
    await emu.control('POST', '/clock/advance', { seconds: 31 * 24 * 3600 });
    const order = await simulate(emu);
    const second = await listen(backfill());
    await app.waitFor(2);
    await waitUntil(() => second.cli.stderr().includes('expired'), () => second.cli.stderr());
    expect(second.cli.stderr()).toMatch(/cursor expired .*GET \/orders\?updated_since=/);
    const [reconciled, created] = app.received;
    expect(reconciled.headers['x-merchant-kit-source']).toBe('reconciliation');
    expect(JSON.parse(reconciled.body)).toMatchObject({ type: 'order.reconciled', data: { order: { id: order.id } } });
    expect(verify({ signature: reconciled.headers['x-service-signature'] as string, timestamp: reconciled.headers['x-service-timestamp'] as string, rawBody: reconciled.body, secrets: secret })).toEqual({ ok: true });
    expect(JSON.parse(created.body)).toMatchObject({ type: 'order.created', data: { order: { id: order.id } } });
  });

  it("skips the integration's own status changes unless --include-own, from the feed and from webhooks", async (t) => {
    const { emu, scratch, app, listen, backfill, deliverTo } = await fresh(t);
    const mine = await simulate(emu);
    const theirs = await simulate(emu);
    await orderAction(emu, mine.id, 'status', { status: 'accepted' });
    await emu.control('POST', `/orders/${theirs.id}/status`, { status: 'accepted', by: 'store_user' });
    const changes = () => app.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'order.status_changed').map((e) => e.data.order.id);
    const plain = await listen(backfill());
    await waitUntil(() => changes().length === 1, () => `changes: ${changes()}`);
    await stop(plain.cli);
    expect(changes()).toEqual([theirs.id]);
    const skipped = plain.cli.lines.map((l) => JSON.parse(l)).filter((l) => l.skipped === 'own_integration');
    expect(skipped.map((l) => [l.type, l.event.data.order.id, l.backfill])).toEqual([['order.status_changed', mine.id, true]]);

    // Over webhooks, without a credential: the envelope names the integration.
    app.received.length = 0;
    const hooks = await listen(['--forward-to', app.url], { MERCHANT_KIT_CREDENTIAL: '', MERCHANT_KIT_BASE_URL: '' });
    await deliverTo(hooks.url);
    await waitUntil(() => hooks.cli.lines.some((l) => l.includes('own_integration')), () => hooks.cli.lines.join('\n'));
    expect(changes()).toEqual([theirs.id]);
    const own = hooks.cli.lines.map((l) => JSON.parse(l)).find((l) => l.skipped === 'own_integration');
    expect(own.event.data.order.id).toBe(mine.id);
    await stop(hooks.cli);

    app.received.length = 0;
    const all = await listen(['--backfill', '--include-own', '--forward-to', app.url, '--cursor-file', join(scratch.dir, 'other.cursor')]);
    await waitUntil(() => changes().length === 2, () => `changes: ${changes()}`);
    expect(changes()).toEqual([mine.id, theirs.id]);
    await stop(all.cli);
  });

  it('keeps its state per profile in the config folder by default', async (t) => {
    const { emu, scratch, listen } = await fresh(t);
    const { cli, ready } = await listen(['--backfill']);
    const expected = join(scratch.dir, 'merchant-kit', 'state', '_env', `listen-${emu.test.integration_id}.json`);
    expect(ready.cursor_file).toBe(expected);
    await waitUntil(() => cli.lines.length > 1, () => 'backfill lines');
    await stop(cli);
    const state = JSON.parse(readFileSync(expected, 'utf8'));
    expect(state).toMatchObject({ version: 1, integration_id: emu.test.integration_id, cursor: expect.any(String) });
    expect(state.seen).toEqual(await feedIds(emu));
  });

  it('takes the credential from a profile, keeping its state in that profile\'s folder', async (t) => {
    const { emu, scratch, secret, app, running, forwardedIds } = await fresh(t);
    const env = apiEnv(emu, scratch.dir, { MERCHANT_KIT_WEBHOOK_SECRET: secret, MERCHANT_KIT_BASE_URL: '', MERCHANT_KIT_CREDENTIAL: '' });
    const add = runCli(['profile', 'add', 'sbx', '--base-url', emu.running.sandbox_base_url, '--credential-stdin'], env);
    running.push(add);
    add.child.stdin.end(`${emu.test.credential}\n`);
    expect((await add.exited).code, add.stderr()).toBe(0);
    const cli = runCli(['--profile', 'sbx', 'listen', '--json', '--port', '0', '--backfill', '--forward-to', app.url], env);
    running.push(cli);
    const ready = JSON.parse(await cli.firstLine);
    expect(ready.cursor_file).toBe(join(scratch.dir, 'merchant-kit', 'state', 'sbx', `listen-${emu.test.integration_id}.json`));
    const ids = await feedIds(emu);
    await app.waitFor(ids.length);
    expect(forwardedIds()).toEqual(ids);
    await stop(cli);
  });

  it('exits 1 with one line when the cursor file cannot be written, before listening', async (t) => {
    const { emu, scratch, secret, running } = await fresh(t);
    writeFileSync(join(scratch.dir, 'a-file'), 'x');
    const cli = runCli(['listen', '--json', '--port', '0', '--backfill', '--cursor-file', join(scratch.dir, 'a-file', 'c.json')], apiEnv(emu, scratch.dir, { MERCHANT_KIT_WEBHOOK_SECRET: secret }));
    running.push(cli);
    expect((await cli.exited).code).toBe(1);
    expect(cli.lines).toEqual([]);
    expect(cli.stderr().trim().split('\n')).toHaveLength(1);
    expect(cli.stderr()).toContain('Cannot write the cursor file');
    expect(existsSync(join(scratch.dir, 'a-file'))).toBe(true);
  });

  it('stops with exit 1 and one line when the cursor file becomes unwritable; the delivery in hand gets 500 and is not lost', async (t) => {
    const { scratch, secret, listen } = await fresh(t);
    const dir = join(scratch.dir, 'state');
    const { cli, url } = await listen(['--backfill', '--cursor-file', join(dir, 'c.json')]);
    await waitUntil(() => existsSync(join(dir, 'c.json')), () => 'first save');
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'not a folder');
    const body = JSON.stringify({ id: 'evt_unsaved', type: 'webhook.test', api_version: '1.0', data: { test: true } });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const res = await fetch(url, { method: 'POST', body, headers: { 'x-service-timestamp': timestamp, 'x-service-signature': signatureHeader([secret], timestamp, body) } });
    expect(res.status).toBe(500);
    expect((await cli.exited).code).toBe(1);
    const errors = cli.stderr().trim().split('\n');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/Cannot write the cursor file .*c\.json/);
  });

  it('refuses --cursor-file without --backfill (exit 2)', async (t) => {
    const { emu, scratch, secret, running, cursorFile } = await fresh(t);
    const cli = runCli(['listen', '--port', '0', '--cursor-file', cursorFile()], apiEnv(emu, scratch.dir, { MERCHANT_KIT_WEBHOOK_SECRET: secret }));
    running.push(cli);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain('--backfill');
  });
});
