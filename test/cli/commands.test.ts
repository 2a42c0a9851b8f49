import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempConfig, SECRET_PATTERN, type CliResult, buildPrivateCli } from '../helpers/cli-core.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { readAllEvents, seedMenu } from '../helpers/orders.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// Every API command of the CLI as a subprocess against one in-process emulator (manual clock).

let emu: TestEmulator;
let receiver: Receiver;
let config: ReturnType<typeof tempConfig>;
let env: NodeJS.ProcessEnv;
/** Every result, checked at the end for secrets (the webhook secret is allowed where it is shown once). */
const results: { args: string[]; result: CliResult }[] = [];

async function run(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const result = await cli(args, { env: { ...env, ...extraEnv } });
  results.push({ args, result });
  return result;
}

async function json<T = any>(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<T> {
  const r = await run([...args, '--json'], extraEnv);
  expect(r.stderr, `stderr of ${args.join(' ')}`).toBe('');
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

let removeBuild: () => void = () => undefined;
afterAll(() => removeBuild());

beforeAll(async () => {
  removeBuild = await buildPrivateCli();
  emu = await startTestEmulator();
  await seedMenu(emu);
  receiver = await startReceiver('/hook');
  config = tempConfig();
  env = { ...config.env, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: emu.test.credential };
});

afterAll(async () => {
  await emu?.close();
  await receiver?.close();
  config?.cleanup();
});

describe('me and store', () => {
  it('me --json prints the API data of GET /me; the human summary names store, environment and key id', async () => {
    const [me, human] = await Promise.all([json(['me']), run(['me'])]);
    expect(me.store.id).toBe(emu.test.store_id);
    expect(me.integration.environment).toBe('test');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/Environment:\s+test/);
    expect(human.stdout).toContain(me.integration.credential.key_id);
  });

  it('store pause and store open switch accepting_orders; store get shows it', async () => {
    expect((await json(['store', 'pause'])).accepting_orders).toBe(false);
    expect((await run(['store', 'get'])).stdout).toMatch(/Accepting orders:\s+no/);
    expect((await json(['store', 'open'])).accepting_orders).toBe(true);
    expect((await json(['store', 'get'])).id).toBe(emu.test.store_id);
  });
});

// issue 27: an answer that means "do something first" names the step.
describe('the next step after a refusal', () => {
  // The live demo store: no product, no webhook.
  const live = () => ({ MERCHANT_KIT_BASE_URL: emu.running.live_base_url, MERCHANT_KIT_CREDENTIAL: emu.live.credential });

  it('webhook get with no webhook: the API\'s 404, then how to set one', async () => {
    const r = await run(['webhook', 'get'], live());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .+ \(404 not_found, request_id req_\w+\)\nhint: this integration has no webhook yet: set one with "merchant-kit webhook set --url URL", or run "merchant-kit listen --configure" to receive on this machine\n$/);
    const json = await run(['webhook', 'get', '--json'], live());
    expect(JSON.parse(json.stderr).error).toMatchObject({ status: 404, code: 'not_found', hint: expect.stringMatching(/^this integration has no webhook yet/) });
  });

  it('simulate order in a store with no product: the API\'s 409 store_closed, then how to give it one and open it', async () => {
    const r = await run(['simulate', 'order'], live());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\(409 store_closed, request_id req_\w+\)\nhint: a store takes orders once it has an active product and is open: add one \("merchant-kit catalog product set …", or "merchant-kit catalog sync FILE"\), then "merchant-kit store open" if it was paused\n$/);
  });
});

describe('simulate and orders', () => {
  let orders: any[];

  it('simulate order --count 2 --json prints the two new orders of the credential\'s store', async () => {
    orders = await json(['simulate', 'order', '--count', '2']);
    expect(orders).toHaveLength(2);
    for (const o of orders) expect(o.store_id).toBe(emu.test.store_id);
    const human = await run(['simulate', 'order', '--scenario', 'pickup_invoice']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/NUMBER\s+ID\s+STATUS/);
    expect(human.stdout).toMatch(/pickup/);
  });

  it('orders list --json is an array; --limit 1 reads one page and says so, --all reads every page', async () => {
    const pending = await json(['orders', 'list', '--status', 'pending', '--ack-status', 'pending']);
    expect(pending.map((o: any) => o.id)).toEqual(expect.arrayContaining(orders.map((o) => o.id)));
    const one = await run(['orders', 'list', '--limit', '1']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toMatch(/--all/);
    expect(one.stdout.trim().split('\n')).toHaveLength(2); // header + one row
    const all = await json(['orders', 'list', '--limit', '1', '--all']);
    expect(all).toHaveLength(3);
  });

  it('orders get shows number, status, customer, items, totals and ack state', async () => {
    const o = orders[0];
    const r = await run(['orders', 'get', o.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`#${o.number}`);
    expect(r.stdout).toMatch(/Status:\s+pending/);
    expect(r.stdout).toContain(o.customer.name);
    expect(r.stdout).toContain(o.items[0].name);
    expect(r.stdout).toMatch(new RegExp(`Total:\\s+${o.totals.total} PYG`));
    expect(r.stdout).toMatch(/Ack:\s+pending/);
    expect(await json(['orders', 'get', o.id])).toEqual(expect.objectContaining({ id: o.id, number: o.number }));
  });

  it('orders ack acknowledges; another external id answers 409 external_id_conflict with request_id, exit 1', async () => {
    const acked = await json(['orders', 'ack', orders[0].id, '--external-id', 'ERP-1', '--external-number', '1']);
    expect(acked.integration).toMatchObject({ ack_status: 'acknowledged', external_id: 'ERP-1', external_number: '1' });
    const conflict = await run(['orders', 'ack', orders[0].id, '--external-id', 'ERP-2']);
    expect(conflict.code, conflict.stderr).toBe(1);
    expect(conflict.stdout).toBe('');
    expect(conflict.stderr.trim().split('\n')).toHaveLength(1);
    expect(conflict.stderr).toMatch(/^error: .+ \(409 external_id_conflict, request_id req_\w+\)$/m);
  });

  it('orders fail reports an import failure', async () => {
    const failed = await json(['orders', 'fail', orders[1].id, '--code', 'unmapped_product', '--message', 'No mapping', '--retryable']);
    expect(failed.integration.ack_status).toBe('failed');
    expect((await run(['orders', 'get', orders[1].id])).stdout).toMatch(/Ack:\s+failed: unmapped_product/);
  });

  it('orders status changes the status; a forbidden transition is exit 1 with the API code; an unknown status is exit 2', async () => {
    const accepted = await json(['orders', 'status', orders[0].id, 'accepted', '--minutes', '30']);
    expect(accepted).toMatchObject({ status: 'accepted', estimated_minutes: 30 });
    const preparing = await json(['orders', 'status', orders[0].id, 'preparing', '--occurred-at', orders[0].created_at]);
    expect(preparing.status).toBe('preparing');
    expect(preparing.status_history.at(-1).at).toBe(orders[0].created_at);
    const back = await run(['orders', 'status', orders[0].id, 'pending']);
    expect(back.code, back.stderr).toBe(1);
    expect(back.stderr).toMatch(/409 invalid_status_transition, request_id req_/);
    const unknown = await run(['orders', 'status', orders[0].id, 'flying']);
    expect(unknown.code, unknown.stderr).toBe(2);
    const badFlag = await run(['orders', 'list', '--status', 'nope']);
    expect(badFlag.code, badFlag.stderr).toBe(2);
  });

  it('entregas create (from an accepted order and manual), get and action', async () => {
    // spec: POST /entregas — a transfer needs the merchant's confirmation of receipt; the simulator picks
    // the payment method, so the flag follows the order's.
    const transfer = orders[0].payment.method_code === 'bank_transfer' ? ['--transfer-received'] : [];
    const fromOrder = await json(['entregas', 'create', '--request-key', 'ENV-1', '--order-id', orders[0].id, ...transfer]);
    expect(fromOrder).toMatchObject({ order_id: orders[0].id, status: 'requested' });
    expect((await json(['entregas', 'get', fromOrder.id])).id).toBe(fromOrder.id);
    const raised = await json(['entregas', 'action', fromOrder.id, 'raise_fee', '--amount', String(fromOrder.courier_fee + 1000)]);
    expect(raised.courier_fee).toBe(fromOrder.courier_fee + 1000);
    const manual = await run([
      'entregas', 'create', '--request-key', 'ENV-2', '--customer-name', 'Ana Gómez', '--customer-phone', '0981123456',
      '--address', 'Av. España 1234', '--payment-method', 'cash', '--customer-total', '85000', '--customer-fee', '10000', '--courier-fee', '12000',
    ]);
    expect(manual.code, manual.stderr).toBe(0);
    expect(manual.stdout).toMatch(/Status:\s+requested/);
    const missing = await run(['entregas', 'action', fromOrder.id, 'pickup']);
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toMatch(/--settlement-confirmed/);
  });
});

describe('webhook', () => {
  it('set prints the signing secret once on creation; get, a second set and deliveries never show it', async () => {
    const created = await run(['webhook', 'set', '--url', `${receiver.url}`, '--events', 'order.created,webhook.test']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/Signing secret: whsec_/);
    const updated = await json(['webhook', 'set', '--url', `${receiver.url}`]);
    expect(updated.events).toEqual(['order.created', 'webhook.test']); // kept without --events
    expect(updated.signing_secret).toBeUndefined();
    const got = await json(['webhook', 'get']);
    expect(got.url).toBe(receiver.url);
  });

  it('test queues a webhook.test; deliveries lists it; retry resends it', async () => {
    expect(await json(['webhook', 'test'])).toEqual({ queued: true });
    await emu.control('POST', '/webhooks/drain');
    const deliveries = await json(['webhook', 'deliveries']);
    const test = deliveries.find((d: any) => d.event_type === 'webhook.test');
    expect(test.status).toBe('succeeded');
    const human = await run(['webhook', 'deliveries', '--status', 'succeeded']);
    expect(human.stdout).toMatch(/ID\s+EVENT\s+STATUS/);
    const retried = await json(['webhook', 'retry', test.id]);
    expect(retried.id).toBe(test.id);
  });

  it('rotate-secret prints the new secret once', async () => {
    const r = await run(['webhook', 'rotate-secret']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Signing secret: whsec_/);
  });
});

describe('faults and failures', () => {
  it('a wrong credential: exit 1, one line with the Spanish message, 401 unauthenticated and request_id', async () => {
    const r = await run(['me'], { MERCHANT_KIT_CREDENTIAL: 'svk_test_AAAAAAAAAAAAAAAAAAAAAAAA.svs_test_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: Credencial .+ \(401 unauthenticated, request_id req_\w+\)$/m);
  });

  it('a credential of the other environment is refused before any call, with the base URL meant', async () => {
    const before = receiver.received.length;
    const r = await run(['me'], { MERCHANT_KIT_BASE_URL: `${receiver.url.replace('/hook', '')}/sandbox/v1`, MERCHANT_KIT_CREDENTIAL: emu.live.credential });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/live credential .* did you mean http:\/\/127\.0\.0\.1:\d+\/v1\?/);
    expect(receiver.received.length).toBe(before);
  });

  it('a base URL without /v1 gets 404 with a hint', async () => {
    const r = await run(['me'], { MERCHANT_KIT_BASE_URL: emu.url });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/404 not_found/);
    expect(r.stderr).toMatch(/did you mean http:\/\/127\.0\.0\.1:\d+\/sandbox\/v1\?/);
  });

  it('an unreachable base URL: one line, exit 1, no stack trace', async () => {
    const r = await run(['me'], { MERCHANT_KIT_BASE_URL: 'http://127.0.0.1:1/sandbox/v1' });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim()).toBe('error: could not reach http://127.0.0.1:1/sandbox/v1 (ECONNREFUSED): is the emulator running? Start it with "merchant-kit emulator start", or point --base-url at the one you use');
  });

  it('http:// to a non-loopback host is a usage error (exit 2)', async () => {
    const r = await run(['me'], { MERCHANT_KIT_BASE_URL: 'http://api.example.com/sandbox/v1' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/https:\/\//);
  });

  it('simulate against a target that is not an emulator: one clear line, exit 1', async () => {
    const r = await run(['simulate', 'order'], { MERCHANT_KIT_BASE_URL: `${receiver.url.replace('/hook', '')}/sandbox/v1` });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim()).toMatch(/^error: .+ is not a merchant-kit emulator/);
  });

  it('a 5xx storm: retried, then exit 1 with the code; a retried ack is applied once', async () => {
    const [order] = await json(['simulate', 'order']);
    // The retries, not their waits, are the subject: no Retry-After (a 503's default is 1 s) and the
    // client's backoff shortened (TEST-ONLY).
    await emu.control('POST', '/faults', { method: 'POST', path: '/sandbox/v1/orders/*/ack', status: 503, retry_after: 0, times: 50 });
    const fast = { MERCHANT_KIT_RETRY_BASE_MS: '5' };
    const storm = await run(['orders', 'ack', order.id, '--external-id', 'ERP-STORM'], fast);
    expect(storm.code, storm.stderr).toBe(1);
    expect(storm.stderr).toMatch(/503 maintenance/);
    await emu.control('DELETE', '/faults');
    await emu.control('POST', '/faults', { method: 'POST', path: '/sandbox/v1/orders/*/ack', status: 500, times: 2 });
    const acked = await json(['orders', 'ack', order.id, '--external-id', 'ERP-STORM'], fast);
    expect(acked.integration.ack_status).toBe('acknowledged');
    const events = (await readAllEvents(emu)).filter((e) => e.type === 'order.updated' && e.data.order.id === order.id);
    expect(events).toHaveLength(1);
  });

  // These two wait out a real Retry-After (1 s, 3 s), each on a path of its own: they run at once.
  it.concurrent('a 429 with Retry-After: waits that long and succeeds', async ({ expect }) => {
    await emu.control('POST', '/faults', { method: 'GET', path: '/sandbox/v1/me', status: 429, retry_after: 1, times: 1 });
    const started = Date.now();
    const r = await run(['me', '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(r.stderr).toMatch(/retrying: GET \/me failed \(429 rate_limited\)/);
  });

  it.concurrent('a 429 with a long Retry-After: one note on stderr that it is waiting (not hung), then the answer', async ({ expect }) => {
    await emu.control('POST', '/faults', { method: 'GET', path: '/sandbox/v1/store', status: 429, retry_after: 3, times: 1 });
    const r = await run(['store', 'get', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(emu.test.store_id);
    expect(r.stderr).toBe('note: GET /store answered 429 rate_limited; waiting 3 s before retrying (--verbose shows every retry)\n');
  });

  it('never prints a credential secret; the webhook secret only where it is shown once', () => {
    for (const { args, result } of results) {
      const text = result.stdout + result.stderr;
      if (/svs_/.test(text)) throw new Error(`svs_ printed by ${args.join(' ')}`);
      const showsOnce = args[0] === 'webhook' && (args[1] === 'rotate-secret' || (args[1] === 'set' && !args.includes('--json')));
      if (!showsOnce && SECRET_PATTERN.test(text)) throw new Error(`secret printed by ${args.join(' ')}`);
    }
    expect(results.length).toBeGreaterThan(30);
  });
});
