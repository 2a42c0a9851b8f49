import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { homologationService } from '../../emulator/homologation/observer-state.js';
import { LocalHomologation } from '../../emulator/adapters/sqlite/local/homologation.js';
import { RING_SIZE } from '../../emulator/store/coordination.js';
import { factsOf } from '../../emulator/homologation/facts.js';
import { seedMenu, simulate } from '../helpers/orders.js';

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const recorded = (e: TestEmulator) => homologationService(e.running.emulator).store.calls(e.test.integration_id);

describe('the observer records every API call per integration', () => {
  it('keeps method, path, status, idempotency key, timing and a body digest — never the body or the credential', async () => {
    emu = await startTestEmulator();
    await emu.api('GET', '/me?x=1');
    await emu.api('PUT', '/catalog/categories/rec-cat', { body: { name: 'Secret menu name' } });
    await emu.api('PATCH', '/catalog/products/nope', { body: { price: '100' }, idempotencyKey: 'key-12345678' });
    await emu.api('GET', '/me', { credential: 'svk_test_aaaaaaaaaaaaaaaaaaaaaaaa.svs_test_wrongwrongwrongwrongwrongwrongwrongwrong' });
    const calls = await recorded(emu);
    expect(calls.map((c) => [c.method, c.path, c.status])).toEqual([
      ['GET', '/me', 200],
      ['PUT', '/catalog/categories/rec-cat', 201],
      ['PATCH', '/catalog/products/nope', 404],
    ]);
    expect(calls[0]).toMatchObject({ idempotency_key: null, body_sha256: null, request_id: expect.stringMatching(/^req_/), injected: false });
    expect(calls[1]!.body_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(calls[2]).toMatchObject({ idempotency_key: 'key-12345678', code: 'not_found', facts: { price: true, available: false, sold_out: false } });
    expect(calls.every((c) => c.duration_ms >= 0 && c.at > 0)).toBe(true);
    const text = JSON.stringify(calls);
    expect(text).not.toContain('Secret menu name');
    expect(text).not.toContain(emu.test.credential.split('.')[1]!);
    expect(text).not.toMatch(/Bearer|svs_/);
    // Another integration's ring is its own.
    expect(await homologationService(emu.running.emulator).store.calls(emu.live.integration_id)).toEqual([]);
  });

  // DESIGN: "told" that an order is final includes the ERP's own read; the answer's code and status
  // are noted in the same onSend hook as the request log's entry (issue 25), and both keep them.
  it('keeps the status a GET /orders/{id} showed and the code of a refused read, as the request log does', async () => {
    emu = await startTestEmulator();
    await seedMenu(emu);
    const order = await simulate(emu);
    const missing = 'ord_01JD0000000000000000000000';
    expect((await emu.api('GET', `/orders/${order.id}`)).status).toBe(200);
    expect((await emu.api('GET', `/orders/${missing}`)).status).toBe(404);
    const reads = (await recorded(emu)).filter((c) => c.method === 'GET');
    expect(reads.map((c) => [c.path, c.status, c.code, c.facts])).toEqual([
      [`/orders/${order.id}`, 200, null, { status: 'pending' }],
      [`/orders/${missing}`, 404, 'not_found', null],
    ]);
    const logged = (await emu.control('GET', '/logs?tail=2')).body.data.entries;
    expect(logged.map((e: { path: string; status: number; error_code: string | null; request_id: string }) => [e.path, e.status, e.error_code, e.request_id]))
      .toEqual(reads.map((c) => [`/sandbox/v1${c.path}`, c.status, c.code, c.request_id]));
  });

  it('is cleared by /_emulator/reset', async () => {
    emu = await startTestEmulator();
    await emu.api('GET', '/me');
    expect(await recorded(emu)).toHaveLength(1);
    expect((await emu.control('POST', '/reset', {})).status).toBe(200);
    expect(await recorded(emu)).toHaveLength(0);
  });

  it('keeps a bounded ring per integration, oldest dropped first', async () => {
    const r = new LocalHomologation();
    for (let i = 0; i < RING_SIZE + 3; i++) r.record('int_a', { seq: 0, at: i, arrived_after: i, answered_at: i, method: 'GET', path: `/n/${i}`, status: 200, code: null, idempotency_key: null, duration_ms: 0, body_sha256: null, request_id: 'req', facts: null, injected: false });
    const calls = await r.calls('int_a');
    expect(calls).toHaveLength(RING_SIZE);
    expect(calls[0]!.path).toBe('/n/3');
    expect(calls.at(-1)!.path).toBe(`/n/${RING_SIZE + 2}`);
  });

  it.each([
    ['PUT', '/catalog/products/p', { name: 'x', option_groups: [{}, {}] }, { option_groups: 2, sold_out: false }],
    ['PUT', '/catalog/products/p', { name: 'x', available: false }, { option_groups: 0, sold_out: true }],
    ['PATCH', '/catalog/options/o', { available: false }, { price: false, available: true, sold_out: true }],
    ['POST', '/orders/o/ack', { external_id: 'E-1', external_number: '9' }, { external_id: 'E-1' }],
    ['POST', '/orders/o/import-failure', { code: 'unmapped_product', message: 'private text' }, { code: 'unmapped_product' }],
    ['GET', '/orders/o', undefined, null],
  ])('reads only whitelisted facts: %s %s', (method, path, body, facts) => {
    expect(factsOf(method, path, body, null)).toEqual(facts);
  });

  it('keeps what a batch\'s operations achieved, from its answer: a failed operation counts for nothing', async () => {
    emu = await startTestEmulator();
    const product = (name: string, category: string) => ({ name, category_external_id: category, price: '100', option_groups: [{ external_id: `${name}-og`, name: 'G', options: [{ external_id: `${name}-op`, name: 'O' }] }] });
    const operations = [
      { op: 'upsert_category', external_id: 'b-cat', data: { name: 'Cat' } },
      { op: 'upsert_product', external_id: 'b-prd', data: product('b-prd', 'b-cat') },
      { op: 'patch_product', external_id: 'b-prd', data: { price: '200', available: false } },
      { op: 'patch_option', external_id: 'b-prd-op', data: { available: false } },
      { op: 'upsert_product', external_id: 'b-bad', data: product('b-bad', 'no-such-category') },
    ];
    const res = await emu.api('POST', '/catalog/batch', { body: { full_snapshot: true, operations }, idempotencyKey: 'batch-facts-1' });
    expect(res.status).toBe(200);
    expect((await recorded(emu)).at(-1)!.facts).toEqual({
      full_snapshot: true, snapshot_id: null, snapshot_part: null, snapshot_last: false, operations: 5,
      categories: 1, products_with_options: 1, price_changes: 1, availability_changes: 2, sold_out: 'b-prd', failed: 1,
      snapshot_status: res.body.data.snapshot.status, snapshot_reason: res.body.data.snapshot.reason,
    });
    expect(res.body.data.snapshot).toMatchObject({ status: 'completed', reason: 'failed_operations' });
  });
});

describe('control API: /_emulator/homologation', () => {
  it('answers 404 for an unknown integration', async () => {
    emu = await startTestEmulator();
    expect((await emu.control('POST', '/homologation/int_01M85J7YBV45TYWZK3J7P64J6X/start')).status).toBe(404);
    expect((await emu.control('GET', '/homologation/int_01M85J7YBV45TYWZK3J7P64J6X')).status).toBe(404);
  });

  it('grades the calls made before any session and says no session was started', async () => {
    emu = await startTestEmulator();
    await emu.api('GET', '/me');
    const res = await emu.control('GET', `/homologation/${emu.test.integration_id}`);
    expect(res.status).toBe(200);
    const report = res.body.data;
    expect(report).toMatchObject({ schema_version: '1.2', mode: 'observer', complete: false, tasks: [] });
    expect(report.checks.find((c: { id: string }) => c.id === 'connection').status).toBe('pass');
    expect(report.checks.find((c: { id: string }) => c.id === 'retries').status).toBe('pending');
    expect(report.notes.join(' ')).toMatch(/No session started/);
  });

  it('refuses a bad timeout with 422', async () => {
    emu = await startTestEmulator();
    const res = await emu.control('POST', `/homologation/${emu.test.integration_id}/start`, { timeout_seconds: 1 });
    expect(res.status).toBe(422);
  });

  it('injects the session\'s 503 only into its own integration\'s next idempotent write', async () => {
    emu = await startTestEmulator();
    const other = (await emu.control('POST', '/stores', { environment: 'test' })).body.data;
    expect((await emu.control('POST', `/homologation/${emu.test.integration_id}/start`, { timeout_seconds: 10 })).status).toBe(201);
    const body = { name: 'Cat' };
    const elsewhere = await emu.api('PUT', '/catalog/categories/x1', { body, credential: other.credential, idempotencyKey: 'other-key-1' });
    expect(elsewhere.status).toBe(201);
    const mine = await emu.api('PATCH', '/store', { body: { accepting_orders: true }, idempotencyKey: 'mine-key-01' });
    expect(mine.status).toBe(503);
    expect(mine.headers.get('retry-after')).toBe('1');
    const next = await emu.api('PATCH', '/store', { body: { accepting_orders: true }, idempotencyKey: 'mine-key-01' });
    expect(next.status).toBe(429);
    expect((await recorded(emu)).filter((c) => c.injected).map((c) => c.status)).toEqual([503, 429]);
  });

  it('injects nothing once the session\'s time is up: an armed fault never outlives its session', async () => {
    emu = await startTestEmulator();
    const id = emu.test.integration_id;
    expect((await emu.control('POST', `/homologation/${id}/start`, { timeout_seconds: 5 })).status).toBe(201);
    // The session's deadline passes (5 s of real time, moved instead of waited for).
    homologationService(emu.running.emulator).sessions.get(id)!.view.deadline = Date.now() - 1;
    const write = await emu.api('PUT', '/catalog/categories/late', { body: { name: 'Late' }, idempotencyKey: 'late-key-01' });
    expect(write.status).toBe(201);
    expect((await recorded(emu)).filter((c) => c.injected)).toEqual([]);
  });

  it('injects nothing without a session (a reset ends it)', async () => {
    emu = await startTestEmulator();
    const id = emu.test.integration_id;
    expect((await emu.control('POST', `/homologation/${id}/start`, { timeout_seconds: 60 })).status).toBe(201);
    expect((await emu.control('POST', '/reset', {})).status).toBe(200);
    const write = await emu.api('PUT', '/catalog/categories/after-reset', { body: { name: 'After' }, idempotencyKey: 'after-reset-1' });
    expect(write.status).toBe(201);
  });
});
