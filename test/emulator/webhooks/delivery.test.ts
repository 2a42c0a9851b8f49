import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestEmulator } from '../../helpers/emulator.js';
import type { Receiver } from '../../helpers/receiver.js';
import { startWebhookRig, type WebhookRig } from '../../helpers/webhook-rig.js';
import { verify } from '../../../src/webhooks/index.js';

let emu: TestEmulator;
let rx: Receiver;
let secret: string;
let rig: WebhookRig;
beforeAll(async () => {
  rig = await startWebhookRig();
  ({ emu, rx, secret } = rig);
});
afterAll(() => rig.close());
afterEach(async () => {
  await emu.control('POST', '/webhooks/drain');
  rx.received.length = 0;
});

describe('webhook delivery', () => {
  it('POST /webhook/test answers 202 {queued: true} and delivers a signed webhook.test with every header of the spec', async () => {
    const res = await emu.api('POST', '/webhook/test');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { queued: true } });
    const [got] = await rx.waitFor(1);
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ type: 'webhook.test', api_version: '1.0', store_id: emu.test.store_id, integration_id: emu.test.integration_id });
    expect(body.id).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(got.headers['x-service-event-id']).toBe(body.id);
    expect(got.headers['x-service-event-type']).toBe('webhook.test');
    expect(got.headers['x-service-delivery-id']).toMatch(/^dlv_[0-9A-Z]{26}$/);
    const ts = got.headers['x-service-timestamp'] as string;
    expect(ts).toMatch(/^\d+$/);
    // DESIGN: the real time of sending, not the emulator's clock.
    // (Its arrival, not the test's later now: a busy machine may run the test late, never the send.)
    expect(Math.abs(Number(ts) - got.at / 1000)).toBeLessThan(5);
    expect(got.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verify({ signature: got.headers['x-service-signature'] as string, timestamp: ts, rawBody: got.body, secrets: secret }).ok).toBe(true);
  });

  it('records the delivery as succeeded with its attempt in GET /webhook/deliveries', async () => {
    await emu.api('POST', '/webhook/test');
    const [got] = await rx.waitFor(1);
    await emu.control('POST', '/webhooks/drain');
    const list = await emu.api('GET', '/webhook/deliveries?limit=1');
    expect(list.status).toBe(200);
    expect(list.body).not.toHaveProperty('next_cursor');
    const [d] = list.body.data;
    expect(d).toMatchObject({
      id: got.headers['x-service-delivery-id'],
      event_id: got.headers['x-service-event-id'],
      event_type: 'webhook.test',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
    });
    expect(d.attempts).toEqual([
      expect.objectContaining({ number: 1, manual: false, succeeded: true, response_status: 200, error: null, duration_ms: expect.any(Number) }),
    ]);
  });

  it('filters GET /webhook/deliveries by status and rejects an unknown status or limit over 200 with 422', async () => {
    const ok = await emu.api('GET', '/webhook/deliveries?status=succeeded');
    expect(ok.body.data.every((d: any) => d.status === 'succeeded')).toBe(true);
    expect(ok.body.data.length).toBeGreaterThan(0);
    expect((await emu.api('GET', '/webhook/deliveries?status=failed')).body.data).toEqual([]);
    expect((await emu.api('GET', '/webhook/deliveries?status=done')).status).toBe(422);
    expect((await emu.api('GET', '/webhook/deliveries?limit=201')).status).toBe(422);
  });

  it('delivers store.updated from a panel change and integration.updated from a permission change', async () => {
    await emu.control('PATCH', `/stores/${emu.test.store_id}`, { fulfillment_types: ['delivery'] });
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { settings: { ack_alert_minutes: 7 } });
    await emu.control('POST', '/webhooks/drain');
    const types = rx.received.map((r) => r.headers['x-service-event-type']);
    expect(types).toEqual(expect.arrayContaining(['store.updated', 'integration.updated']));
  });

  it('does not deliver store.updated once store:read is withdrawn, yet still delivers integration.updated', async () => {
    const all = ['store:write', 'catalog:read', 'catalog:write', 'orders:read', 'orders:write', 'webhooks:manage'];
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { scopes: all });
    await emu.control('PATCH', `/stores/${emu.test.store_id}`, { fulfillment_types: ['delivery', 'pickup'] });
    await emu.control('POST', '/webhooks/drain');
    const types = rx.received.map((r) => r.headers['x-service-event-type']);
    expect(types).toContain('integration.updated');
    expect(types).not.toContain('store.updated');
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { scopes: [...all, 'store:read'] });
  });

  it('delivers only the subscribed types', async () => {
    await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['store.updated'] } });
    await emu.control('PATCH', `/integrations/${emu.test.integration_id}`, { settings: { ack_alert_minutes: 9 } });
    await emu.control('PATCH', `/stores/${emu.test.store_id}`, { fulfillment_types: ['pickup'] });
    await emu.control('POST', '/webhooks/drain');
    expect(rx.received.map((r) => r.headers['x-service-event-type'])).toEqual(['store.updated']);
    await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'] } });
  });

  it('POST /webhook/test queues and delivers webhook.test whatever the events list', async () => {
    await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['store.updated'] } });
    const res = await emu.api('POST', '/webhook/test');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { queued: true } });
    const drained = await emu.control('POST', '/webhooks/drain');
    expect(drained.body.data).toEqual({ attempted: 1, succeeded: 1, failed: 0 });
    expect(rx.received.map((r) => r.headers['x-service-event-type'])).toEqual(['webhook.test']);
    await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'] } });
  });

  it('creates no delivery while the webhook is inactive; POST /webhook/test answers queued false', async () => {
    await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'], active: false } });
    const res = await emu.api('POST', '/webhook/test');
    expect(res.body.data).toEqual({ queued: false });
    const drained = await emu.control('POST', '/webhooks/drain');
    expect(drained.body.data).toEqual({ attempted: 0, succeeded: 0, failed: 0 });
    expect(rx.received).toHaveLength(0);
    await emu.api('PUT', '/webhook', { body: { url: rx.url, events: ['*'], active: true } });
  });

  it('writes the delivery row in the same transaction as the event (a rolled-back event leaves no delivery)', async () => {
    const store = emu.running.emulator.env('test').store;
    const count = async () => (await store.webhooks.list(emu.test.integration_id, null, 200)).length;
    const before = await count();
    await expect(
      store.tx(async (tx) => {
        await tx.emit('webhook.test', emu.test.store_id, {}, emu.test.integration_id);
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await count()).toBe(before);
    await store.tx((tx) => tx.emit('webhook.test', emu.test.store_id, {}, emu.test.integration_id));
    expect(await count()).toBe(before + 1);
  });
});
