import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { asStore, eventsOf, newStore } from '../../helpers/stores.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

const ALL_SCOPES = ['store:read', 'store:write', 'catalog:read', 'catalog:write', 'orders:read', 'orders:write', 'webhooks:manage'];

describe('POST /_emulator/stores', () => {
  it('answers 201 with store, integration and a credential of the environment', async () => {
    const res = await emu.control('POST', '/stores', { environment: 'live', name: 'Pizzería Central' });
    expect(res.status).toBe(201);
    const { store, integration, credential } = res.body.data;
    expect(store).toMatchObject({ name: 'Pizzería Central', slug: 'pizzeria-central', environment: 'live', suspended: false });
    expect(store.id).toMatch(/^str_/);
    expect(integration).toMatchObject({ status: 'inactive', scopes: ALL_SCOPES, environment: 'live', store_id: store.id });
    expect(integration.settings).toEqual({
      catalog_mode: 'erp_managed', order_status_authority: 'both', missing_items_policy: 'keep',
      ack_expected: 'on_receipt', ack_alert_minutes: 5,
    });
    expect(credential).toMatch(/^svk_live_[A-Za-z0-9]+\.svs_live_[A-Za-z0-9]+$/);
    const me = await emu.liveApi('GET', '/me', { credential });
    expect(me.status).toBe(200);
    expect(me.body.data.store).toEqual({ id: store.id, slug: 'pizzeria-central', name: 'Pizzería Central' });
    expect((await emu.api('GET', '/me', { credential })).status).toBe(401);
  });

  it('takes scopes, settings and slug', async () => {
    const made = await newStore(emu, { slug: 'mi-local', scopes: ['orders:read'], settings: { catalog_mode: 'manual', ack_alert_minutes: 30 } });
    expect(made.store.slug).toBe('mi-local');
    expect(made.integration.scopes).toEqual(['orders:read']);
    expect(made.integration.settings).toMatchObject({ catalog_mode: 'manual', ack_alert_minutes: 30, order_status_authority: 'both' });
  });

  it('starts the store with the switch on but not accepting orders without an active product', async () => {
    const made = await newStore(emu);
    expect(made.store.accepting_switch).toBe(true);
    expect(made.store.accepting_orders).toBe(false);
  });

  it('answers 422 validation_failed with details for a bad body', async () => {
    const res = await emu.control('POST', '/stores', { name: 'x', scopes: ['store:read', 'store:admin'], settings: { ack_alert_minutes: 0 }, color: 'red' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['color', 'environment', 'scopes.1', 'settings.ack_alert_minutes']);
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers 400 malformed_json for a body that is not a JSON object', async () => {
    const res = await fetch(`${emu.running.admin_url}/stores`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('malformed_json');
  });
});

describe('PATCH /_emulator/stores/{store_id}', () => {
  it('suspends the store: 403 store_suspended on the API, GET /me still 200', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    const res = await emu.control('PATCH', `/stores/${made.store.id}`, { suspended: true });
    expect(res.status).toBe(200);
    expect(res.body.data.suspended).toBe(true);
    const store = await call('GET', '/store');
    expect(store.status).toBe(403);
    expect(store.body.error.code).toBe('store_suspended');
    expect((await call('GET', '/me')).status).toBe(200);
    await emu.control('PATCH', `/stores/${made.store.id}`, { suspended: false });
    expect((await call('GET', '/store')).status).toBe(200);
  });

  it('changes payment methods and fulfillment types and emits store.updated', async () => {
    const made = await newStore(emu);
    const res = await emu.control('PATCH', `/stores/${made.store.id}`, {
      payment_methods: [{ code: 'cash', name: 'Efectivo' }, { code: 'custom_pix', name: 'Pix' }],
      fulfillment_types: ['pickup'],
    });
    expect(res.status).toBe(200);
    const store = await asStore(emu, made)('GET', '/store');
    expect(store.body.data.payment_methods).toEqual([{ code: 'cash', name: 'Efectivo' }, { code: 'custom_pix', name: 'Pix' }]);
    expect(store.body.data.fulfillment_types).toEqual(['pickup']);
    const events = await eventsOf(emu, 'test', made.integration.id);
    expect(events.map((e) => e.type)).toEqual(['store.updated']);
    expect((events[0].data.changed as string[]).sort()).toEqual(['fulfillment_types', 'payment_methods']);
    expect(events[0].data.store).toMatchObject({ id: made.store.id, fulfillment_types: ['pickup'] });
  });

  it('emits nothing when nothing an integration sees changed', async () => {
    const made = await newStore(emu);
    await emu.control('PATCH', `/stores/${made.store.id}`, { accepting_orders: true });
    expect(await eventsOf(emu, 'test', made.integration.id)).toEqual([]);
  });

  it('answers 422 for a payment method code outside the base codes and custom_', async () => {
    const made = await newStore(emu);
    const res = await emu.control('PATCH', `/stores/${made.store.id}`, { payment_methods: [{ code: 'bitcoin', name: 'BTC' }], fulfillment_types: [] });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['fulfillment_types', 'payment_methods.0.code']);
  });

  it('answers 404 not_found for an unknown store', async () => {
    const res = await emu.control('PATCH', '/stores/str_01JD0000000000000000000000', { suspended: true });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('finds a store of the live environment', async () => {
    const res = await emu.control('PATCH', `/stores/${emu.live.store_id}`, { fulfillment_types: ['delivery', 'pickup'] });
    expect(res.status).toBe(200);
    expect(res.body.data.environment).toBe('live');
  });
});

describe('PATCH /_emulator/integrations/{integration_id}', () => {
  it('removing a scope gives 403 insufficient_scope on GET /store while GET /me stays 200', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    expect((await call('GET', '/store')).status).toBe(200);
    const res = await emu.control('PATCH', `/integrations/${made.integration.id}`, { scopes: ALL_SCOPES.filter((s) => s !== 'store:read') });
    expect(res.status).toBe(200);
    const store = await call('GET', '/store');
    expect(store.status).toBe(403);
    expect(store.body.error.code).toBe('insufficient_scope');
    const me = await call('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.data.integration.scopes).not.toContain('store:read');
  });

  it('merges settings and emits integration.updated to that integration only', async () => {
    const made = await newStore(emu);
    const other = await newStore(emu);
    const res = await emu.control('PATCH', `/integrations/${made.integration.id}`, { settings: { order_status_authority: 'erp' } });
    expect(res.status).toBe(200);
    expect(res.body.data.settings).toMatchObject({ catalog_mode: 'erp_managed', order_status_authority: 'erp', ack_alert_minutes: 5 });
    const me = await asStore(emu, made)('GET', '/me');
    expect(me.body.data.integration.settings.order_status_authority).toBe('erp');
    const events = await eventsOf(emu, 'test', made.integration.id);
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('integration.updated');
    expect(events[0].data).toEqual({
      integration: { id: made.integration.id, status: 'inactive', scopes: ALL_SCOPES, settings: res.body.data.settings },
      changed: ['settings'],
    });
    expect(await eventsOf(emu, 'test', other.integration.id)).toEqual([]);
  });

  it('suspends the integration: 403 integration_suspended, GET /me 200 with status suspended', async () => {
    const made = await newStore(emu);
    const call = asStore(emu, made);
    await emu.control('PATCH', `/integrations/${made.integration.id}`, { status: 'suspended' });
    const store = await call('GET', '/store');
    expect(store.status).toBe(403);
    expect(store.body.error.code).toBe('integration_suspended');
    const me = await call('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.data.integration.status).toBe('suspended');
    await emu.control('PATCH', `/integrations/${made.integration.id}`, { status: 'active' });
    expect((await call('GET', '/store')).status).toBe(200);
  });

  it('answers 422 for an unknown status and 404 for an unknown integration', async () => {
    const made = await newStore(emu);
    const bad = await emu.control('PATCH', `/integrations/${made.integration.id}`, { status: 'inactive' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].field).toBe('status');
    const missing = await emu.control('PATCH', '/integrations/int_01JD0000000000000000000000', { status: 'active' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });
});
