import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrivateCli, cli, tempConfig } from '../helpers/cli-core.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { seedMenu, simulate } from '../helpers/orders.js';
import { plural } from '../../src/cli/output.js';
import { statusText } from '../../src/cli/commands/orders/show.js';

// issue 14: counts read "1 order" and "2 orders", never "order(s)"; an order in a final state shows
// no estimated minutes.

let emu: TestEmulator;
let env: NodeJS.ProcessEnv;
let config: ReturnType<typeof tempConfig>;
let removeBuild: () => void = () => undefined;

beforeAll(async () => {
  removeBuild = await buildPrivateCli();
  emu = await startTestEmulator();
  config = tempConfig();
  env = { ...config.env, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: emu.test.credential };
});

afterAll(async () => {
  await emu?.close();
  config?.cleanup();
  removeBuild();
});

describe('plural', () => {
  it.each([
    [0, 'order', undefined, '0 orders'],
    [1, 'order', undefined, '1 order'],
    [2, 'order', undefined, '2 orders'],
    [1, 'category', 'categories', '1 category'],
    [1200, 'category', 'categories', '1,200 categories'],
  ])('%i %s → %s', (n, word, words, expected) => expect(plural(n, word, words)).toBe(expected));
});

describe('counts in the output', () => {
  it('catalog pull of one category and one product says "1 category and 1 product"', async () => {
    expect((await emu.api('PUT', '/catalog/categories/ONE', { body: { name: 'Única' } })).status).toBeLessThan(300);
    expect((await emu.api('PUT', '/catalog/products/P-1', { body: { name: 'Producto', category_external_id: 'ONE', price: '1000' } })).status).toBeLessThan(300);
    const r = await cli(['catalog', 'pull', '--out', `${config.dir}/menu.json`], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Wrote 1 category and 1 product of store /);
  });
});

describe('estimated minutes', () => {
  it('show while the order is on its way, not once it is final (cancelled, rejected, completed)', async () => {
    await seedMenu(emu);
    const order = await simulate(emu);
    const accepted = await cli(['orders', 'status', order.id, 'accepted', '--minutes', '30'], { env });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/Status:\s+accepted, ~30 min\n/);
    const cancelled = await cli(['orders', 'status', order.id, 'cancelled', '--reason', 'Sin repartidor'], { env });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toMatch(/Status:\s+cancelled — Sin repartidor\n/);
    const shown = await cli(['orders', 'get', order.id], { env });
    expect(shown.stdout).not.toContain('min');
    // The API keeps the estimate; only the CLI's line drops it.
    expect((await emu.api('GET', `/orders/${order.id}`)).body.data.estimated_minutes).toBe(30);
  });

  it.each([
    ['accepted', 'accepted, ~25 min'], ['ready', 'ready, ~25 min'], ['completed', 'completed'], ['rejected', 'rejected'], ['cancelled', 'cancelled'],
  ] as const)('statusText: %s → %s', (status, text) => {
    expect(statusText({ status, status_reason: null, estimated_minutes: 25 })).toBe(text);
  });
});
