import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { advance, product } from '../../helpers/catalog.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
});
afterAll(() => emu.close());

const put = (code: string, body: unknown) => emu.api('PUT', `/catalog/categories/${code}`, { body });
const listed = async (code: string) => (await emu.api('GET', '/catalog/categories?limit=200')).body.data.find((c: any) => c.external_id === code);

describe('PUT /catalog/categories/{external_id}', () => {
  it('answers 201 created the first time, then 200 unchanged for the same body, then 200 updated', async () => {
    const first = await put('C-UP', { name: 'Pizzas', position: 3 });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({ id: expect.stringMatching(/^cat_[0-9A-Z]{26}$/), external_id: 'C-UP', result: 'created' });
    const same = await put('C-UP', { name: 'Pizzas', position: 3 });
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual({ id: first.body.data.id, external_id: 'C-UP', result: 'unchanged' });
    const changed = await put('C-UP', { name: 'Pizzas artesanales', position: 3 });
    expect(changed.status).toBe(200);
    expect(changed.body.data.result).toBe('updated');
    expect((await listed('C-UP')).name).toBe('Pizzas artesanales');
  });

  it('keeps the position when it is omitted and restores active to its default true', async () => {
    await put('C-POS', { name: 'Postres', position: 7, active: false });
    const res = await put('C-POS', { name: 'Postres' });
    expect(res.body.data.result).toBe('updated');
    expect(await listed('C-POS')).toMatchObject({ position: 7, active: true });
  });

  it('moves updated_at only when something changed', async () => {
    await put('C-TOUCH', { name: 'Empanadas' });
    const before = (await listed('C-TOUCH')).updated_at;
    await advance(emu, 60);
    await put('C-TOUCH', { name: 'Empanadas' });
    expect((await listed('C-TOUCH')).updated_at).toBe(before);
    await put('C-TOUCH', { name: 'Empanadas salteñas' });
    expect((await listed('C-TOUCH')).updated_at).not.toBe(before);
  });

  it('answers 200 ignored_stale and changes nothing for a source_updated_at older than the applied one', async () => {
    await put('C-STALE', { name: 'Nuevo', source_updated_at: '2026-01-02T10:00:00-03:00' });
    const stale = await put('C-STALE', { name: 'Viejo', source_updated_at: '2026-01-02T09:59:59-03:00' });
    expect(stale.status).toBe(200);
    expect(stale.body.data.result).toBe('ignored_stale');
    expect((await listed('C-STALE')).name).toBe('Nuevo');
    const newer = await put('C-STALE', { name: 'Más nuevo', source_updated_at: '2026-01-02T13:00:01Z' });
    expect(newer.body.data.result).toBe('updated');
    expect((await listed('C-STALE')).source_updated_at).toBe('2026-01-02T10:00:01.000-03:00');
  });

  it('treats external codes as case-sensitive', async () => {
    const upper = await put('C-CASE', { name: 'Mayúsculas' });
    const lower = await put('c-case', { name: 'Minúsculas' });
    expect(lower.status).toBe(201);
    expect(lower.body.data.id).not.toBe(upper.body.data.id);
  });

  it('answers 422 with details for a too long name, a bad position and an unknown field', async () => {
    const res = await put('C-BAD', { name: 'x'.repeat(121), position: 100_001, color: 'rojo' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    const fields = res.body.error.details.map((d: any) => `${d.field}:${d.code}`);
    expect(fields).toEqual(expect.arrayContaining(['name:too_long', 'position:too_big', 'color:unknown_field']));
  });

  it('accepts a name of exactly 120 characters and positions 0 and 100000', async () => {
    expect((await put('C-EDGE', { name: 'x'.repeat(120), position: 0 })).status).toBe(201);
    expect((await put('C-EDGE', { name: 'x'.repeat(120), position: 100_000 })).status).toBe(200);
  });

  it('answers 422 on external_id for a code outside the pattern', async () => {
    const res = await put('bad%20code', { name: 'X' });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].field).toBe('external_id');
    const long = await put('x'.repeat(65), { name: 'X' });
    expect(long.status).toBe(422);
  });

  it('answers 422 for a source_updated_at without offset', async () => {
    const res = await put('C-DATE', { name: 'X', source_updated_at: '2026-01-02T10:00:00' });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0]).toMatchObject({ field: 'source_updated_at', code: 'invalid' });
  });
});

describe('DELETE /catalog/categories/{external_id}', () => {
  it('deactivates (never deletes) and answers updated, then unchanged', async () => {
    await put('C-DEL', { name: 'Temporada' });
    const first = await emu.api('DELETE', '/catalog/categories/C-DEL');
    expect(first.status).toBe(200);
    expect(first.body.data.result).toBe('updated');
    expect((await listed('C-DEL')).active).toBe(false);
    const again = await emu.api('DELETE', '/catalog/categories/C-DEL');
    expect(again.body.data.result).toBe('unchanged');
  });

  it('answers 409 category_not_empty while it has active products, and deactivates once they are inactive', async () => {
    await put('C-FULL', { name: 'Con productos' });
    await emu.api('PUT', '/catalog/products/P-IN-FULL', { body: product({ category_external_id: 'C-FULL' }) });
    const res = await emu.api('DELETE', '/catalog/categories/C-FULL');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('category_not_empty');
    expect((await listed('C-FULL')).active).toBe(true);
    await emu.api('DELETE', '/catalog/products/P-IN-FULL');
    expect((await emu.api('DELETE', '/catalog/categories/C-FULL')).body.data.result).toBe('updated');
  });

  it('answers 404 not_found for an unknown code', async () => {
    const res = await emu.api('DELETE', '/catalog/categories/NOPE');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
