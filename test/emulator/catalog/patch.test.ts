import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { advance, product, withCategory } from '../../helpers/catalog.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu, 'CAT-1');
});
afterAll(() => emu.close());

const get = async (code: string) => (await emu.api('GET', '/catalog/products?limit=200')).body.data.find((p: any) => p.external_id === code);
const withOptions = (code: string) => product({
  option_groups: [{ external_id: `${code}-G`, name: 'Extras', max_select: 2, options: [{ external_id: `${code}-O`, name: 'Queso', price: '2000' }] }],
});

describe('PATCH /catalog/products/{external_id}', () => {
  it('changes the price and answers updated, then unchanged for the same patch', async () => {
    await emu.api('PUT', '/catalog/products/PP-1', { body: product() });
    const res = await emu.api('PATCH', '/catalog/products/PP-1', { body: { price: '9000.75' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ external_id: 'PP-1', result: 'updated' });
    expect((await get('PP-1')).price).toBe('9000.75');
    expect((await emu.api('PATCH', '/catalog/products/PP-1', { body: { price: '9000.75' } })).body.data.result).toBe('unchanged');
  });

  it('leaves the fields it does not name as they are', async () => {
    await emu.api('PUT', '/catalog/products/PP-2', { body: product({ description: 'Helada', price: '100' }) });
    await emu.api('PATCH', '/catalog/products/PP-2', { body: { available: false } });
    expect(await get('PP-2')).toMatchObject({ available: false, active: true, price: '100', description: 'Helada' });
  });

  it('answers 200 ignored_stale for an older source_updated_at', async () => {
    await emu.api('PUT', '/catalog/products/PP-3', { body: product({ source_updated_at: '2026-05-01T10:00:00Z' }) });
    const res = await emu.api('PATCH', '/catalog/products/PP-3', { body: { active: false, source_updated_at: '2026-05-01T09:00:00Z' } });
    expect(res.body.data.result).toBe('ignored_stale');
    expect((await get('PP-3')).active).toBe(true);
  });

  it('answers 422 when none of price, available or active is given, and for an unknown field', async () => {
    const none = await emu.api('PATCH', '/catalog/products/PP-1', { body: { source_updated_at: '2026-05-01T09:00:00Z' } });
    expect(none.status).toBe(422);
    expect(none.body.error.details[0].code).toBe('required');
    const unknown = await emu.api('PATCH', '/catalog/products/PP-1', { body: { name: 'Otro' } });
    expect(unknown.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'name', code: 'unknown_field' })]));
  });

  it('answers 404 not_found for an unknown code', async () => {
    const res = await emu.api('PATCH', '/catalog/products/NOPE', { body: { price: '1' } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('replays the first answer for the same optional Idempotency-Key', async () => {
    await emu.api('PUT', '/catalog/products/PP-IDEM', { body: product() });
    const first = await emu.api('PATCH', '/catalog/products/PP-IDEM', { body: { price: '1' }, idempotencyKey: 'patch-idem-1' });
    const again = await emu.api('PATCH', '/catalog/products/PP-IDEM', { body: { price: '1' }, idempotencyKey: 'patch-idem-1' });
    expect(first.body.data.result).toBe('updated');
    expect(again.body.data.result).toBe('updated');
    expect(again.headers.get('idempotent-replay')).toBe('true');
  });
});

describe('DELETE /catalog/products/{external_id}', () => {
  it('deactivates (never deletes) and answers updated, then unchanged', async () => {
    await emu.api('PUT', '/catalog/products/PD-1', { body: product() });
    const first = await emu.api('DELETE', '/catalog/products/PD-1');
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ external_id: 'PD-1', result: 'updated' });
    expect((await get('PD-1')).active).toBe(false);
    expect((await emu.api('DELETE', '/catalog/products/PD-1')).body.data.result).toBe('unchanged');
  });

  it('answers 404 not_found for an unknown code', async () => {
    expect((await emu.api('DELETE', '/catalog/products/NOPE')).status).toBe(404);
  });
});

describe('PATCH /catalog/options/{external_id}', () => {
  it('changes price and availability, answers the opt_ id, and moves the product updated_at', async () => {
    await emu.api('PUT', '/catalog/products/PO-1', { body: withOptions('PO-1') });
    const before = await get('PO-1');
    await advance(emu, 5);
    const res = await emu.api('PATCH', '/catalog/options/PO-1-O', { body: { price: '2500.5', available: false } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: before.option_groups[0].options[0].id, external_id: 'PO-1-O', result: 'updated' });
    const after = await get('PO-1');
    expect(after.option_groups[0].options[0]).toMatchObject({ price: '2500.50', available: false });
    expect(after.updated_at).not.toBe(before.updated_at);
    expect((await emu.api('PATCH', '/catalog/options/PO-1-O', { body: { available: false } })).body.data.result).toBe('unchanged');
  });

  it('answers 422 for an empty patch and a bad amount, and 404 for an unknown code', async () => {
    expect((await emu.api('PATCH', '/catalog/options/PO-1-O', { body: {} })).status).toBe(422);
    const bad = await emu.api('PATCH', '/catalog/options/PO-1-O', { body: { price: '1.234' } });
    expect(bad.body.error.details[0]).toMatchObject({ field: 'price', code: 'invalid' });
    expect((await emu.api('PATCH', '/catalog/options/NOPE', { body: { price: '1' } })).status).toBe(404);
  });
});
