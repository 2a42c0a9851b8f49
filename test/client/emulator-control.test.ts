import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, EmulatorControl, MerchantClient } from '../../src/client/index.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { recordingDispatcher, sendJson, startFakeServer, type ClientRig } from '../helpers/client.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// DESIGN: control API under /_emulator — every EmulatorControl method against a real emulator.
let emu: TestEmulator;
let control: EmulatorControl;
let receiver: Receiver;
const sent: ClientRig['sent'] = [];
const dispatcher = recordingDispatcher(sent);
const clients: MerchantClient[] = [];
const clientFor = (credential: string) => {
  const c = new MerchantClient({ baseUrl: emu.running.sandbox_base_url, credential, maxRetries: 0 });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  emu = await startTestEmulator();
  receiver = await startReceiver();
  control = EmulatorControl.fromBaseUrl(`${emu.running.sandbox_base_url}/`, { dispatcher });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await control?.close();
  await dispatcher.close();
  await receiver?.close();
  await emu?.close();
});

describe('EmulatorControl.fromBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/v1', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/sandbox/v1/', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/_emulator', 'http://127.0.0.1:4010'],
    ['http://localhost:4010/prefix/sandbox/v1', 'http://localhost:4010/prefix'],
  ])('finds the emulator root of %s', (given, root) => {
    expect(EmulatorControl.fromBaseUrl(given).url).toBe(root);
  });
});

describe('system routes', () => {
  it('health() and isEmulator() answer true on an emulator', async () => {
    expect(await control.health()).toEqual({ ok: true });
    expect(await control.isEmulator()).toBe(true);
  });

  it('isEmulator() is false for a server without the control API and for no server', async () => {
    const fake = await startFakeServer((_req, res) => sendJson(res, 404, { error: { code: 'not_found', message: 'x', request_id: 'req_1' } }));
    expect(await EmulatorControl.fromBaseUrl(`${fake.url}/v1`).isEmulator()).toBe(false);
    expect(await EmulatorControl.fromBaseUrl(`${fake.url}/v1`).probe()).toBe('not_emulator');
    await fake.close();
    expect(await EmulatorControl.fromBaseUrl(`${fake.url}/v1`).isEmulator()).toBe(false);
    // issue 14: nothing answering is not "not an emulator": probe() says `unreachable`.
    expect(await EmulatorControl.fromBaseUrl(`${fake.url}/v1`).probe()).toBe('unreachable');
    expect(await control.probe()).toBe('emulator');
  });

  it('clock() and advanceClock() move the manual clock', async () => {
    const before = await control.clock();
    expect(before.mode).toBe('manual');
    const after = await control.advanceClock(90);
    expect(after.offset_seconds).toBe(before.offset_seconds + 90);
  });

  it('addFault(), faults() and clearFaults() arm and clear a fault', async () => {
    const fault = await control.addFault({ method: 'get', path: '/sandbox/v1/store', status: 503, times: 1 });
    expect(fault).toMatchObject({ method: 'GET', status: 503 });
    expect(await control.faults()).toHaveLength(1);
    const error = await clientFor(emu.test.credential).store.get().catch((e) => e);
    expect(error).toMatchObject({ status: 503, code: 'maintenance' });
    await control.addFault({ path: '/sandbox/v1/me', status: 500, times: 5 });
    expect((await control.clearFaults()).cleared).toBe(1);
  });

  it('sends Content-Type: application/json on every write, body or not', async () => {
    await control.drainWebhooks();
    await control.clearFaults();
    const writes = sent.filter((s) => s.method !== 'GET');
    expect(writes.length).toBeGreaterThan(2);
    for (const w of writes) expect(w.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('stores, integrations and credentials', () => {
  it('createStore(), patchStore() and patchIntegration() play the panel', async () => {
    const made = await control.createStore({ environment: 'test', name: 'Lomitería Central' });
    expect(made.credential).toMatch(/^svk_test_.+\.svs_test_/);
    expect((await clientFor(made.credential).me()).store.id).toBe(made.store.id);
    expect((await control.patchStore(made.store.id, { suspended: true })).suspended).toBe(true);
    const integration = await control.patchIntegration(made.integration.id, { scopes: ['orders:read'] });
    expect(integration.scopes).toEqual(['orders:read']);
    const state = await control.state();
    const stores = state.environments.find((e) => e.name === 'test')!.stores;
    expect(stores.find((s) => s.id === made.store.id)?.suspended).toBe(true);
  });

  it('rotateCredential() issues a new credential; revokeCredential() ends the old one', async () => {
    const made = await control.createStore({ environment: 'test' });
    const rotated = await control.rotateCredential(made.integration.id, { overlap_hours: 1 });
    expect(rotated.previous.map((p) => p.key_id)).toEqual([made.credential.split('.')[0]]);
    expect((await clientFor(rotated.credential).me()).store.id).toBe(made.store.id);
    const revoked = await control.revokeCredential(made.integration.id, made.credential.split('.')[0]!);
    expect(revoked.revoked_at).toEqual(expect.any(String));
    const error = await clientFor(made.credential).me().catch((e) => e);
    expect(error).toMatchObject({ status: 401, code: 'unauthenticated' });
  });
});

describe('orders, catalog and webhooks', () => {
  it('simulateOrder(), order(), setOrderStatus() and patchOrder() drive an order', async () => {
    const client = clientFor(emu.test.credential);
    await client.catalog.categories.put('CAT-1', { name: 'Bebidas' });
    await client.catalog.products.put('BEB-1', { name: 'Agua', category_external_id: 'CAT-1', price: '5000' });
    const order = await control.simulateOrder({ store_id: emu.test.store_id, scenario: 'delivery' });
    expect((await control.order(order.id)).id).toBe(order.id);
    expect((await control.setOrderStatus(order.id, { status: 'accepted', by: 'store_user' })).status).toBe('accepted');
    expect((await control.patchOrder(order.id, { payment_status: 'paid' })).payment.status).toBe('paid');
  });

  it('createPanelProduct() and patchPanelProduct() make a product without a code', async () => {
    const product = await control.createPanelProduct(emu.test.store_id, { name: 'Chipa', price: '3000', category_name: 'Panadería' });
    expect(product.external_id).toBeNull();
    expect((await control.patchPanelProduct(product.id, { price: '3500' })).price).toBe('3500');
  });

  it('setWebhook(), drainWebhooks() and retryDelivery() deliver to a receiver', async () => {
    const webhook = await control.setWebhook(emu.test.integration_id, { url: receiver.url, events: ['*'] });
    expect(webhook.url).toBe(receiver.url);
    await clientFor(emu.test.credential).webhook.test();
    const drained = await control.drainWebhooks();
    expect(drained.succeeded).toBeGreaterThan(0);
    const [delivery] = await clientFor(emu.test.credential).webhook.deliveries();
    const retried = await control.retryDelivery(delivery!.id);
    expect(retried.id).toBe(delivery!.id);
  });

  it('setChaos() and clearChaos() set and clear delivery chaos', async () => {
    expect(await control.setChaos({ duplicate_rate: 0.5, reorder: true })).toMatchObject({ duplicate_rate: 0.5, reorder: true });
    await control.clearChaos();
  });

  it('reset() returns to the seeded state and keeps the seeded credential valid', async () => {
    const made = await control.createStore({ environment: 'live' });
    await control.reset();
    const state = await control.state();
    const ids = state.environments.flatMap((e) => e.stores.map((s) => s.id));
    expect(ids).not.toContain(made.store.id);
    expect((await clientFor(emu.test.credential).me()).store.id).toBe(emu.test.store_id);
  });

  it('rejects a control error with ApiError and its Spanish message', async () => {
    const error = await control.simulateOrder({ store_id: 'str_01JD0000000000000000000000', scenario: 'delivery' }).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(error.message).toBe('No existe ese comercio.');
  });
});

describe('homologation and export', () => {
  it('startHomologation() and homologation() answer the observer report', async () => {
    const started = await control.startHomologation(emu.test.integration_id, { timeout_seconds: 600 });
    expect(started).toMatchObject({ mode: 'observer', integration: { id: emu.test.integration_id } });
    const report = await control.homologation(emu.test.integration_id);
    expect(report.schema_version).toBe(started.schema_version);
    expect(report.checks.length).toBeGreaterThan(0);
  });

  it('exportState() returns the gzip bundle with its checksum', async () => {
    const bundle = await control.exportState();
    expect(bundle.filename).toBe('merchant-kit-state.json.gz');
    const state = JSON.parse(gunzipSync(bundle.bytes).toString('utf8'));
    expect(state).toMatchObject({ format: 'merchant-kit-bundle', sha256: bundle.sha256 });
    expect(JSON.stringify(state.payload)).toContain(emu.test.store_id);
  });
});

describe('routes checked on the wire', () => {
  it('calls homologation and export routes with the admin token as a Bearer header', async () => {
    const fake = await startFakeServer((_req, res) => sendJson(res, 200, { data: { ok: true } }));
    const admin = new EmulatorControl(fake.url, { adminToken: 'admin-token-123' });
    await admin.startHomologation('int_1');
    await admin.homologation('int_1');
    await admin.exportState();
    expect(fake.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /_emulator/homologation/int_1/start', 'GET /_emulator/homologation/int_1', 'GET /_emulator/export',
    ]);
    expect(fake.requests.every((r) => r.headers.authorization === 'Bearer admin-token-123')).toBe(true);
    expect(fake.requests[0]!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(fake.requests[1]!.headers['content-type']).toBeUndefined();
    await admin.close();
    await fake.close();
  });

  it('is refused without the admin token of an emulator started with one, accepted with it', async () => {
    const guarded = await startTestEmulator({ adminToken: 'secret-admin-token' });
    const without = new EmulatorControl(guarded.url);
    const withToken = new EmulatorControl(guarded.url, { adminToken: 'secret-admin-token' });
    expect(await without.state().catch((e) => e)).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(await without.isEmulator()).toBe(false);
    expect(await without.probe()).toBe('needs_token');
    expect(await withToken.probe()).toBe('emulator');
    expect((await withToken.clock()).mode).toBe('manual');
    await without.close();
    await withToken.close();
    await guarded.close();
  });

  it('createStore() answers the store token once; issueStoreToken() replaces it, revokeStoreToken() ends it; a store token opens its store', async () => {
    const guarded = await startTestEmulator({ adminToken: 'secret-admin-token' });
    const admin = new EmulatorControl(guarded.url, { adminToken: 'secret-admin-token' });
    try {
      const made = await admin.createStore({ environment: 'test', name: 'Con token' });
      expect(made.store_token).toMatch(/^mks_[A-Za-z0-9]{40}$/);
      const asStore = new EmulatorControl(guarded.url, { adminToken: made.store_token });
      const state = await asStore.state();
      expect(state.access).toEqual({ role: 'store', store_id: made.store.id });
      expect(await asStore.reset().catch((e) => e)).toMatchObject({ status: 403, code: 'insufficient_scope' });
      expect(await asStore.patchStore(guarded.test.store_id, { suspended: true }).catch((e) => e)).toMatchObject({ status: 404, code: 'not_found' });
      await asStore.close();

      const issued = await admin.issueStoreToken(made.store.id);
      expect(issued).toMatchObject({ store_id: made.store.id, environment: 'test', store_token: expect.stringMatching(/^mks_/) });
      const replaced = new EmulatorControl(guarded.url, { adminToken: made.store_token });
      expect(await replaced.probe()).toBe('needs_token');
      await replaced.close();
      const fresh = new EmulatorControl(guarded.url, { adminToken: issued.store_token });
      expect((await fresh.patchStore(made.store.id, { accepting_orders: false })).accepting_switch).toBe(false);
      // The token is never shown by the client's own description.
      expect(JSON.stringify(fresh)).not.toContain(issued.store_token);
      expect(await admin.revokeStoreToken(made.store.id)).toEqual({ store_id: made.store.id, revoked: true });
      expect(await fresh.probe()).toBe('needs_token');
      await fresh.close();
    } finally {
      await admin.close();
      await guarded.close();
    }
  });
});
