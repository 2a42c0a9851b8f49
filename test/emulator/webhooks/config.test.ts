import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('PUT /webhook and GET /webhook', () => {
  it('answers 404 not_found to GET /webhook, rotate-secret and test before a webhook exists', async () => {
    expect((await emu.api('GET', '/webhook')).body.error.code).toBe('not_found');
    expect((await emu.api('POST', '/webhook/rotate-secret')).status).toBe(404);
    expect((await emu.api('POST', '/webhook/test')).status).toBe(404);
  });

  it('creates with 201 and shows the whsec_ signing_secret only then', async () => {
    const created = await emu.api('PUT', '/webhook', { body: { url: 'https://erp.example.com/hooks', events: ['*'] } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ url: 'https://erp.example.com/hooks', events: ['*'], active: true, paused: false, paused_reason: null });
    expect(created.body.data.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);

    const read = await emu.api('GET', '/webhook');
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('signing_secret');
    expect(JSON.stringify(read.body)).not.toContain('whsec_');

    const updated = await emu.api('PUT', '/webhook', { body: { url: 'https://erp.example.com/v2', events: ['order.created', 'order.created'], active: false } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ url: 'https://erp.example.com/v2', events: ['order.created'], active: false });
    expect(updated.body.data).not.toHaveProperty('signing_secret');
  });

  it.each([
    ['http://localhost:3000/hook'],
    ['http://127.0.0.1:3000/hook'],
    ['http://127.10.0.2/hook'],
    ['http://[::1]:8080/hook'],
    ['https://localhost/hook'],
  ])('accepts the loopback URL %s (local development)', async (url) => {
    const res = await emu.api('PUT', '/webhook', { body: { url, events: ['webhook.test'] } });
    expect(res.status).toBe(200);
  });

  it.each([['https://93.184.216.34/hook'], ['https://223.255.255.1/hook'], ['https://ERP.Example.com/hook'], ['https://10.example.com/hook']])(
    'accepts the public address %s',
    async (url) => {
      const res = await emu.api('PUT', '/webhook', { body: { url, events: ['webhook.test'] } });
      expect(res.status).toBe(200);
    },
  );

  it.each([
    ['http://erp.example.com/hook', 'https_required'],
    ['http://192.168.1.10/hook', 'https_required'],
    ['ftp://erp.example.com/hook', 'https_required'],
    ['https://10.0.0.5/hook', 'not_public'],
    ['https://192.168.0.1/hook', 'not_public'],
    ['https://intranet/hook', 'not_public'],
    ['https://255.255.255.255/hook', 'not_public'],
    ['https://224.0.0.1/hook', 'not_public'],
    ['https://239.255.255.250/hook', 'not_public'],
    ['https://240.0.0.1/hook', 'not_public'],
    ['https://0.0.0.0/hook', 'not_public'],
    ['https://0.1.2.3/hook', 'not_public'],
    ['https://[ff02::1]/hook', 'not_public'],
    ['https://[ff0e::101]/hook', 'not_public'],
    ['https://[::]/hook', 'not_public'],
    ['https://[fe80::1]/hook', 'not_public'],
    ['https://[fd12:3456::1]/hook', 'not_public'],
    ['https://user:pw@erp.example.com/hook', 'invalid'],
    // issue 14: texts the OpenAPI document's pattern refuses were stored.
    ['https://*.example.com/hook', 'invalid'],
    ['https://erp_1.example.com/hook', 'invalid'],
    ['https://erp.exa\tmple.com/hook', 'invalid'],
    ['https://erp.example.com/ho\nok', 'invalid'],
    ['https://erp.example.com/a\u0001b', 'invalid'],
    ['https://erp.example.com/a b', 'invalid'],
    ['https://erp.example.com/caf\u00e9', 'invalid'],
    ['https://[2001:4860:4860::8888]/hook', 'invalid'],
    ['erp.example.com/hook', 'invalid'],
    [`https://erp.example.com/${'a'.repeat(480)}`, 'too_long'],
  ])('answers 422 for the URL %s with details code %s', async (url, code) => {
    const res = await emu.api('PUT', '/webhook', { body: { url, events: ['*'] } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'url', code })]);
  });

  it('answers 422 for an unknown event type, with the index in the field path', async () => {
    const res = await emu.api('PUT', '/webhook', { body: { url: 'https://erp.example.com/h', events: ['order.created', 'order.deleted'] } });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'events.1', code: 'unknown_event_type' })]);
  });

  it('answers 422 for "*" mixed with types, an empty list, a missing url and an unknown field', async () => {
    const mixed = await emu.api('PUT', '/webhook', { body: { url: 'https://erp.example.com/h', events: ['*', 'order.created'] } });
    expect(mixed.status).toBe(422);
    const empty = await emu.api('PUT', '/webhook', { body: { url: 'https://erp.example.com/h', events: [] } });
    expect(empty.body.error.details[0]).toMatchObject({ field: 'events', code: 'too_few' });
    const missing = await emu.api('PUT', '/webhook', { body: { events: ['*'] } });
    expect(missing.body.error.details[0]).toMatchObject({ field: 'url', code: 'required' });
    const unknown = await emu.api('PUT', '/webhook', { body: { url: 'https://erp.example.com/h', events: ['*'], secret: 'x' } });
    expect(unknown.body.error.details[0]).toMatchObject({ field: 'secret', code: 'unknown_field' });
  });

  it('answers 403 insufficient_scope without webhooks:manage', async () => {
    const made = await emu.control('POST', '/stores', { environment: 'test', scopes: ['orders:read'] });
    const res = await emu.api('GET', '/webhook', { credential: made.body.data.credential });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});

describe('POST /webhook/rotate-secret', () => {
  it('answers a new whsec_ secret and previous_valid_hours 24', async () => {
    const res = await emu.api('POST', '/webhook/rotate-secret');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ signing_secret: expect.stringMatching(/^whsec_/), previous_valid_hours: 24 });
  });
});

describe('panel webhook (control API)', () => {
  it('sets the webhook of an integration with 201 and the secret, then 200 on change', async () => {
    const made = await emu.control('POST', '/stores', { environment: 'test' });
    const id = made.body.data.integration.id;
    const missing = await emu.control('PUT', `/integrations/${id}/webhook`, { events: ['*'] });
    expect(missing.status).toBe(422);
    const created = await emu.control('PUT', `/integrations/${id}/webhook`, { url: 'https://panel.example.com/h', events: ['*'] });
    expect(created.status).toBe(201);
    expect(created.body.data.signing_secret).toMatch(/^whsec_/);
    const changed = await emu.control('PUT', `/integrations/${id}/webhook`, { active: false });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ url: 'https://panel.example.com/h', active: false });
    const state = await emu.control('GET', '/state');
    const shown = state.body.data.environments
      .flatMap((e: any) => e.stores)
      .flatMap((s: any) => s.integrations)
      .find((i: any) => i.id === id);
    expect(shown.webhook).toMatchObject({ url: 'https://panel.example.com/h', active: false, paused: false, paused_reason: null });
  });

  it('answers 404 for an unknown integration', async () => {
    const res = await emu.control('PUT', '/integrations/int_01JD0000000000000000000000/webhook', { active: true });
    expect(res.status).toBe(404);
  });
});
