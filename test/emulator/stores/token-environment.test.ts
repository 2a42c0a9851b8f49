import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { controlCall } from '../../helpers/tokens.js';
import { provisionStore } from '../../../emulator/stores/provision.js';

// DESIGN, Storage and the team sandbox: every handler acts in the environment that authorization
// resolved. Issue 24 (high): a test store whose id the live demo store also had (seeded ids repeated
// across processes) got, with its own store token, a live credential minted, the live credential
// revoked and the live store suspended: the token was checked in its environment, the handler looked
// the id up in "the first environment that has it", live first. Ids no longer repeat; the store here
// gets a live twin of its ids by hand (as a database written by an older version may hold).

const ADMIN = 'admin-token-del-entorno-resuelto';
let emu: TestEmulator;
let storeId: string;
let integrationId: string;
let token: string;
let ownKey: string;
/** The live store with the test store's ids, and its working credential. */
let twin: { credential: string; keyId: string };

const asStore = (method: string, path: string, body?: unknown) => controlCall(emu, method, path, token, body);
const asAdmin = (method: string, path: string, body?: unknown) => controlCall(emu, method, path, ADMIN, body);

beforeAll(async () => {
  emu = await startTestEmulator({ adminToken: ADMIN, clock: 'manual' });
  const made = (await asAdmin('POST', '/stores', { environment: 'test', name: 'Tienda de prueba' })).body.data;
  storeId = made.store.id;
  integrationId = made.integration.id;
  token = made.store_token;
  ownKey = made.credential.split('.')[0];
  const live = emu.running.emulator.env('live');
  const twinStore = await provisionStore(live, { name: 'Tienda en producción', slug: 'gemela' }, {
    storeId, integrationId, credential: (await import('../../../emulator/stores/credentials.js')).issueCredential('live'),
  });
  twin = { credential: twinStore.credential.full, keyId: twinStore.credential.keyId };
  expect((await emu.liveApi('GET', '/me', { credential: twin.credential })).status).toBe(200);
}, 300_000);
afterAll(() => emu?.close());

/** The live twin as the admin's state shows it. */
async function liveTwin() {
  const state = (await asAdmin('GET', '/state')).body.data;
  const live = state.environments.find((e: { name: string }) => e.name === 'live');
  return live.stores.find((s: { id: string }) => s.id === storeId);
}

describe('a store token whose ids the other environment also holds', () => {
  it('changes its own store, never the live store of the same id (PATCH /stores/{id})', async () => {
    expect((await asStore('PATCH', `/stores/${storeId}`, { suspended: true })).body.data.environment).toBe('test');
    expect((await liveTwin()).suspended).toBe(false);
    expect((await asStore('PATCH', `/stores/${storeId}`, { suspended: false })).status).toBe(200);
  });

  it('mints credentials of its own environment only (POST /integrations/{id}/credentials)', async () => {
    const res = await asStore('POST', `/integrations/${integrationId}/credentials`, { overlap_hours: 1 });
    expect(res.status).toBe(201);
    expect(res.body.data.credential).toMatch(/^svk_test_/);
    expect((await liveTwin()).integrations[0].credentials.map((c: { key_id: string }) => c.key_id)).toEqual([twin.keyId]);
  });

  it('cannot revoke the live credential: 404 for a key its own integration does not have', async () => {
    const res = await asStore('DELETE', `/integrations/${integrationId}/credentials/${twin.keyId}`);
    expect(res.status).toBe(404);
    expect((await emu.liveApi('GET', '/me', { credential: twin.credential })).status).toBe(200);
    expect((await asStore('DELETE', `/integrations/${integrationId}/credentials/${ownKey}`)).status).toBe(200);
  });

  it('suspends and sets up its own integration only (PATCH /integrations/{id}, PUT …/webhook)', async () => {
    expect((await asStore('PATCH', `/integrations/${integrationId}`, { status: 'suspended', settings: { ack_alert_minutes: 7 } })).body.data.environment).toBe('test');
    expect((await asStore('PUT', `/integrations/${integrationId}/webhook`, { url: 'https://erp.example.com/hook', events: ['*'] })).status).toBe(201);
    const integration = (await liveTwin()).integrations[0];
    expect(integration.status).not.toBe('suspended');
    expect(integration.settings.ack_alert_minutes).not.toBe(7);
    expect(integration.webhook).toBeNull();
    expect((await asStore('PATCH', `/integrations/${integrationId}`, { status: 'active' })).status).toBe(200);
  });

  it('makes panel products and simulated orders in its own store (POST /stores/{id}/products, POST /orders)', async () => {
    const product = await asStore('POST', `/stores/${storeId}/products`, { name: 'Chipa', price: '3000' });
    expect(product.status).toBe(201);
    const order = await asStore('POST', '/orders', { store_id: storeId, scenario: 'pickup_invoice' });
    expect(order.status).toBe(201);
    expect((await asStore('GET', `/panel/stores/${storeId}/orders`)).body.data.map((o: { id: string }) => o.id)).toEqual([order.body.data.id]);
    const live = emu.running.emulator.env('live');
    expect(await live.store.catalog.productById(product.body.data.id)).toBeUndefined();
    expect(await live.store.orders.byId(order.body.data.id)).toBeUndefined();
  });

  it('observes its own integration (POST /homologation/{id}/start, GET /homologation/{id})', async () => {
    expect((await asStore('POST', `/homologation/${integrationId}/start`, { timeout_seconds: 60 })).status).toBe(201);
    const report = await asStore('GET', `/homologation/${integrationId}`);
    expect(report.status).toBe(200);
    expect(report.body.data.target.environment).toBe('test');
    expect(report.body.data.integration.store_name).toBe('Tienda de prueba');
  });
});
