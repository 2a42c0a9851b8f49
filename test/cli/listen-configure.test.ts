import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, type CliProcess } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { scratchDir, stopAll } from '../helpers/feed.js';
import { waitFor } from '../helpers/wait.js';

// issue 14: `listen --configure` works on every run, like `stripe listen`: a new webhook's secret,
// then the secret kept from the previous run while nobody changed the webhook, else a rotated one;
// `--events a,b` sets the webhook's event types.

let emu: TestEmulator;
let scratch: ReturnType<typeof scratchDir>;
const running: CliProcess[] = [];

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
});
afterEach(async () => {
  await stopAll(running, []);
  scratch.cleanup();
});

const apiEnv = (extra: NodeJS.ProcessEnv = {}) => ({
  MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url,
  MERCHANT_KIT_CREDENTIAL: emu.test.credential,
  MERCHANT_KIT_WEBHOOK_SECRET: '',
  MERCHANT_KIT_PROFILE: '',
  XDG_CONFIG_HOME: scratch.dir,
  ...extra,
});

/** One `listen --configure` run: its ready line; stopped after the test unless `stop` is called. */
async function configureRun(args: string[] = []): Promise<{ cli: CliProcess; ready: any; stop: () => Promise<void> }> {
  const cli = runCli(['listen', '--json', '--port', '0', '--configure', ...args], apiEnv());
  running.push(cli);
  const ready = JSON.parse(await cli.firstLine);
  return {
    cli,
    ready,
    stop: async () => {
      cli.child.kill('SIGINT');
      expect((await cli.exited).code).toBe(0);
    },
  };
}

/** Sends a webhook.test and delivers it: the listener's line for it. */
async function testDelivery(cli: CliProcess): Promise<any> {
  const before = cli.lines.length;
  expect((await emu.api('POST', '/webhook/test')).status).toBe(202);
  const drained = (await emu.control('POST', '/webhooks/drain')).body.data;
  await waitFor(() => cli.lines.length > before, () => `a line after ${before}; got:\n${cli.lines.join('\n')}\nstderr: ${cli.stderr()}`);
  return { drained, line: JSON.parse(cli.lines.at(-1)!) };
}

const secretsPrinted = (cli: CliProcess) => (cli.lines.join('\n') + cli.stderr()).match(/whsec_[A-Za-z0-9_-]+/g) ?? [];

describe('listen --configure on every run', () => {
  it('run 1 creates the webhook and prints its new secret once; run 2 keeps that secret (nothing rotated, nothing printed); both verify deliveries', async () => {
    const first = await configureRun();
    expect(first.ready).toMatchObject({ configured_url: first.ready.url, configured: { created: true, events: ['*'], secret: 'created' } });
    const secret = first.ready.signing_secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect((await testDelivery(first.cli)).line).toMatchObject({ type: 'webhook.test', verified: true });
    expect(secretsPrinted(first.cli)).toEqual([secret]);
    await first.stop();

    const second = await configureRun();
    expect(second.ready.configured).toEqual({ created: false, events: ['*'], secret: 'kept' });
    expect(second.ready.signing_secret).toBeUndefined();
    expect((await emu.api('GET', '/webhook')).body.data.url).toBe(second.ready.url);
    const { drained, line } = await testDelivery(second.cli);
    expect(drained).toMatchObject({ failed: 0 });
    expect(line).toMatchObject({ type: 'webhook.test', verified: true });
    expect(secretsPrinted(second.cli)).toEqual([]);
    // Kept encrypted: the state file never holds the secret in clear.
    const stateDir = join(scratch.dir, 'merchant-kit', 'state', '_env');
    const kept = readdirSync(stateDir).filter((f) => f.startsWith('listen-secret-'));
    expect(kept).toEqual([`listen-secret-${emu.test.integration_id}.json`]);
    expect(readFileSync(join(stateDir, kept[0]!), 'utf8')).not.toContain('whsec_');
  });

  it('a webhook made elsewhere (no secret kept here) keeps its events and gets a rotated secret, printed once; deliveries verify', async () => {
    const made = await emu.api('PUT', '/webhook', { body: { url: 'http://127.0.0.1:9/x', events: ['webhook.test', 'order.created'] } });
    const old = made.body.data.signing_secret as string;
    const run = await configureRun();
    expect(run.ready.configured).toEqual({ created: false, events: ['webhook.test', 'order.created'], secret: 'rotated' });
    expect(run.ready.signing_secret).toMatch(/^whsec_/);
    expect(run.ready.signing_secret).not.toBe(old);
    expect((await testDelivery(run.cli)).line).toMatchObject({ type: 'webhook.test', verified: true });
    const deliveries = (await emu.api('GET', '/webhook/deliveries')).body.data;
    expect(deliveries[0].attempts.at(-1).response_status).toBe(200);
  });

  it('a secret rotated elsewhere since the last run (webhook rotate-secret) is not reused: the next run rotates again', async () => {
    const first = await configureRun();
    await first.stop();
    // No clock move in between (manual clock): the webhook's updated_at still tells the change.
    const rotated = await emu.api('POST', '/webhook/rotate-secret');
    expect(rotated.status).toBe(200);
    const second = await configureRun();
    expect(second.ready.configured.secret).toBe('rotated');
    expect(second.ready.signing_secret).not.toBe(rotated.body.data.signing_secret);
    expect((await testDelivery(second.cli)).line).toMatchObject({ type: 'webhook.test', verified: true });
  });
});

describe('listen --configure --events', () => {
  it('sets the webhook\'s event types on creation and on a later run', async () => {
    const first = await configureRun(['--events', 'order.created,webhook.test']);
    expect(first.ready.configured).toMatchObject({ created: true, events: ['order.created', 'webhook.test'] });
    await first.stop();
    const second = await configureRun(['--events', 'order.status_changed']);
    expect(second.ready.configured).toMatchObject({ created: false, events: ['order.status_changed'], secret: 'kept' });
    expect((await emu.api('GET', '/webhook')).body.data.events).toEqual(['order.status_changed']);
  });

  it.each([
    [['--configure', '--events', 'order.created,order.nope'], /unknown value order\.nope; accepted: \*, /],
    [['--configure', '--events', '*,order.created'], /"\*" \(every event type\) goes alone/],
    [['--events', 'order.created'], /--events works with --configure only/],
  ])('refuses %j before any call (exit 2)', async (args, message) => {
    const cli = runCli(['listen', '--port', '0', ...args], apiEnv({ MERCHANT_KIT_WEBHOOK_SECRET: 'whsec_x' }));
    running.push(cli);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toMatch(message);
    expect((await emu.api('GET', '/webhook')).status).toBe(404);
  });
});
