import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrivateCli, cli, tempConfig, SECRET_PATTERN, type CliResult } from '../helpers/cli-core.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { readAllEvents, seedMenu, simulate } from '../helpers/orders.js';

// The customer's and the panel's side from the CLI (`simulate cancel|paid|status|store-update`), as a
// subprocess against an in-process emulator; each effect is checked through the API.

let emu: TestEmulator;
let config: ReturnType<typeof tempConfig>;
let env: NodeJS.ProcessEnv;
const results: CliResult[] = [];

async function run(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const result = await cli(args, { env: { ...env, ...extra } });
  results.push(result);
  return result;
}

async function json<T = any>(args: string[]): Promise<T> {
  const r = await run([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as T;
}

let removeBuild: () => void = () => undefined;
beforeAll(async () => {
  removeBuild = await buildPrivateCli();
  emu = await startTestEmulator();
  await seedMenu(emu);
  config = tempConfig();
  // Order commands need no credential: the control API finds the order in either environment.
  env = { ...config.env, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url };
});
afterAll(async () => {
  removeBuild();
  await emu?.close();
  config?.cleanup();
});

const order = async (id: string) => (await emu.api('GET', `/orders/${id}`)).body.data;

describe('simulate cancel', () => {
  it('the customer cancels a pending order with a reason; the history says by customer', async () => {
    const { id } = await simulate(emu);
    const printed = await json(['simulate', 'cancel', id, '--reason', 'Cambié de opinión']);
    expect(printed.status).toBe('cancelled');
    const stored = await order(id);
    expect(stored.status).toBe('cancelled');
    expect(stored.status_history.at(-1)).toMatchObject({ status: 'cancelled', by: 'customer', reason: 'Cambié de opinión' });
  });

  it('without --reason is a usage error (exit 2) and nothing changes', async () => {
    const { id } = await simulate(emu);
    const r = await run(['simulate', 'cancel', id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--reason/);
    expect((await order(id)).status).toBe('pending');
  });

  it('an accepted order is not the customer\'s to cancel: exit 1 with the API\'s code and request id', async () => {
    const { id } = await simulate(emu);
    expect((await run(['simulate', 'status', id, 'accepted', '--minutes', '20'])).code).toBe(0);
    const r = await run(['simulate', 'cancel', id, '--reason', 'Tarda mucho']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/\(403 status_authority_denied, request_id req_/);
    expect((await order(id)).status).toBe('accepted');
  });
});

describe('simulate paid', () => {
  it('marks the order paid and the integration gets order.updated', async () => {
    const { id } = await simulate(emu, { payment_method_code: 'cash' });
    const r = await run(['simulate', 'paid', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Payment:\s+.*paid/);
    expect((await order(id)).payment.status).toBe('paid');
    const events = await readAllEvents(emu, 'types=order.updated');
    expect(events.some((e) => e.data.order.id === id && e.data.order.payment.status === 'paid' && e.data.changed.includes('payment'))).toBe(true);
  });
});

describe('simulate status', () => {
  it('accepted --minutes 25 by the panel (store_user, the default); the API shows it', async () => {
    const { id } = await simulate(emu);
    const printed = await json(['simulate', 'status', id, 'accepted', '--minutes', '25']);
    expect(printed).toMatchObject({ id, status: 'accepted', estimated_minutes: 25 });
    expect((await order(id)).status_history.at(-1)).toMatchObject({ status: 'accepted', by: 'store_user' });
  });

  it('--by system rejects with a reason', async () => {
    const { id } = await simulate(emu);
    await json(['simulate', 'status', id, 'rejected', '--reason', 'Fuera de zona', '--by', 'system']);
    expect((await order(id)).status_history.at(-1)).toMatchObject({ status: 'rejected', by: 'system', reason: 'Fuera de zona' });
  });

  it('a refused move exits 1 with 409 invalid_status_transition; an unknown status or --by is exit 2', async () => {
    const { id } = await simulate(emu);
    const refused = await run(['simulate', 'status', id, 'ready']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/409 invalid_status_transition/);
    for (const args of [['simulate', 'status', id, 'eaten'], ['simulate', 'status', id, 'accepted', '--by', 'courier']]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
    }
    expect((await order(id)).status).toBe('pending');
  });

  it('an unknown order: exit 1 with 404 not_found (not "not an emulator")', async () => {
    const r = await run(['simulate', 'paid', 'ord_01M00000000000000000000000']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/404 not_found/);
    expect(r.stderr).not.toMatch(/not a merchant-kit emulator/);
  });
});

describe('simulate store-update', () => {
  it('--accepting-orders off switches the store off and store.updated reaches the integration', async () => {
    const before = (await readAllEvents(emu, 'types=store.updated')).length;
    const r = await run(['simulate', 'store-update', '--accepting-orders', 'off'], { MERCHANT_KIT_CREDENTIAL: emu.test.credential });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Accepting orders:\s+no/);
    expect((await emu.api('GET', '/store')).body.data.accepting_orders).toBe(false);
    const events = await readAllEvents(emu, 'types=store.updated');
    expect(events.length).toBe(before + 1);
    expect(events.at(-1).data.changed).toContain('accepting_orders');
    await json(['simulate', 'store-update', '--store', emu.test.store_id, '--accepting-orders', 'on']);
    expect((await emu.api('GET', '/store')).body.data.accepting_orders).toBe(true);
  });

  it('--payment-methods keeps known names, takes code=Name for new ones; --fulfillment-types replaces the list', async () => {
    const store = await json(['simulate', 'store-update', '--store', emu.test.store_id, '--payment-methods', 'cash,qr,custom_ticket=Ticket de la casa', '--fulfillment-types', 'pickup']);
    expect(store.payment_methods).toEqual([
      { code: 'cash', name: 'Efectivo' },
      { code: 'qr', name: 'Pago con QR' },
      { code: 'custom_ticket', name: 'Ticket de la casa' },
    ]);
    const api = (await emu.api('GET', '/store')).body.data;
    expect(api.fulfillment_types).toEqual(['pickup']);
    expect(api.payment_methods.map((m: any) => m.code)).toEqual(['cash', 'qr', 'custom_ticket']);
    const unnamed = await run(['simulate', 'store-update', '--store', emu.test.store_id, '--payment-methods', 'cash,custom_nuevo']);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toMatch(/custom_nuevo needs a name: custom_nuevo=Name/);
    // Base codes and the seeded custom_vale get their names back without being named.
    const restored = await json(['simulate', 'store-update', '--store', emu.test.store_id, '--payment-methods', 'cash,bank_transfer,card_on_delivery,qr,other,custom_vale', '--fulfillment-types', 'delivery,pickup']);
    expect(restored.payment_methods.at(-1)).toEqual({ code: 'custom_vale', name: 'Vale de la casa' });
  });

  it('without a change, or without a store and a credential, is a usage error (exit 2)', async () => {
    expect((await run(['simulate', 'store-update', '--store', emu.test.store_id])).code).toBe(2);
    const r = await run(['simulate', 'store-update', '--suspended', 'on']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--store/);
    expect((await emu.api('GET', '/me')).status).toBe(200);
  });

  it('a bad value is the API\'s 422 with its field, exit 1', async () => {
    const r = await run(['simulate', 'store-update', '--store', emu.test.store_id, '--payment-methods', 'bitcoin=Bitcoin']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/payment_methods\.0\.code.*422 validation_failed/);
  });
});

describe('every simulate output', () => {
  it('never shows a secret', () => {
    for (const r of results) expect(`${r.stdout}${r.stderr}`).not.toMatch(SECRET_PATTERN);
  });
});
