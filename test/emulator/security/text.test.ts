import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { key, seedMenu, simulate } from '../../helpers/orders.js';

// issue 15: a lone UTF-16 surrogate sent as a JSON escape (`"\ud800"`) was accepted and stored as
// three U+FFFD. It is refused by the contract layer, on every endpoint, with 422 validation_failed
// naming the field.

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
  await seedMenu(emu);
});
afterAll(() => emu?.close());

const LONE = '\\ud800'; // as JSON text: the escape, not a character

function expectRefused(res: { status: number; body: any }, field: string) {
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.details).toContainEqual(expect.objectContaining({ field, code: 'invalid' }));
}

describe('a lone surrogate in a write', () => {
  it('refuses a category name, and stores nothing', async () => {
    const res = await emu.api('PUT', '/catalog/categories/CAT-LONE', { rawBody: `{"name":"Pizza ${LONE}"}`, headers: { 'content-type': 'application/json' } });
    expectRefused(res, 'name');
    const list = await emu.api('GET', '/catalog/categories');
    expect(list.body.data.map((c: any) => c.external_id)).not.toContain('CAT-LONE');
  });

  it('refuses an option name deep in a product, by its dotted path', async () => {
    const body = `{"name":"Combo","category_external_id":"CAT-BURGER","price":"1000","option_groups":[{"external_id":"G-L","name":"Tamaño","options":[{"external_id":"O-L","name":"\\udc00Grande"}]}]}`;
    expectRefused(await emu.api('PUT', '/catalog/products/P-LONE', { rawBody: body, headers: { 'content-type': 'application/json' } }), 'option_groups.0.options.0.name');
  });

  it('refuses a status reason', async () => {
    const order = await simulate(emu);
    const res = await emu.api('POST', `/orders/${order.id}/status`, {
      rawBody: `{"status":"rejected","reason":"Sin stock ${LONE}"}`, headers: { 'content-type': 'application/json' }, idempotencyKey: key(),
    });
    expectRefused(res, 'reason');
    expect((await emu.api('GET', `/orders/${order.id}`)).body.data.status).toBe('pending');
  });

  it('refuses a store name on the control API', async () => {
    const refused = await fetch(`${emu.url}/_emulator/stores`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"environment":"test","name":"Tienda ${LONE}"}` });
    expect(refused.status).toBe(422);
    expect((await refused.json()).error.details).toContainEqual(expect.objectContaining({ field: 'name', code: 'invalid' }));
  });

  it('fails only the batch operation that carries it, by its field', async () => {
    const body = `{"operations":[{"op":"upsert_category","external_id":"CAT-OK","data":{"name":"Bien"}},{"op":"upsert_category","external_id":"CAT-BAD","data":{"name":"Mal ${LONE}"}}]}`;
    const res = await emu.api('POST', '/catalog/batch', { rawBody: body, headers: { 'content-type': 'application/json' }, idempotencyKey: key() });
    expect(res.status).toBe(200);
    expect(res.body.data.summary).toEqual({ total: 2, succeeded: 1, failed: 1 });
    expect(res.body.data.results[1]).toMatchObject({ external_id: 'CAT-BAD', result: 'error', error: { code: 'validation_failed' } });
  });

  it('accepts a text whose surrogates come in pairs (an emoji)', async () => {
    const res = await emu.api('PUT', '/catalog/categories/CAT-EMOJI', { rawBody: '{"name":"Pizza \\ud83c\\udf55"}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    const list = await emu.api('GET', '/catalog/categories');
    expect(list.body.data.find((c: any) => c.external_id === 'CAT-EMOJI').name).toBe('Pizza 🍕');
  });
});

// issue 17: U+0000 is valid UTF-8 but a PostgreSQL text cannot hold it (a shared sandbox answered
// 500): every storage refuses it alike, 422 on the field, nothing stored.
describe('a null character in a write', () => {
  const NUL = '\\u0000'; // as JSON text: the escape

  it('refuses a category name with 422 invalid on the field, and stores nothing', async () => {
    const res = await emu.api('PUT', '/catalog/categories/CAT-NUL', { rawBody: `{"name":"Pizza${NUL}"}`, headers: { 'content-type': 'application/json' } });
    expectRefused(res, 'name');
    expect(res.body.error.details[0].message).toContain('U+0000');
    const list = await emu.api('GET', '/catalog/categories');
    expect(list.body.data.map((c: any) => c.external_id)).not.toContain('CAT-NUL');
  });

  it('refuses an import-failure message', async () => {
    const order = await simulate(emu);
    const res = await emu.api('POST', `/orders/${order.id}/import-failure`, {
      rawBody: `{"code":"other","message":"a${NUL}b","retryable":false}`, headers: { 'content-type': 'application/json' }, idempotencyKey: key(),
    });
    expectRefused(res, 'message');
  });
});
