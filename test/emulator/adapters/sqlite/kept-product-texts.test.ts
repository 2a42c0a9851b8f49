import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sqliteDb, startTestEmulator, type TestEmulator } from '../../../helpers/emulator.js';
import { product, withCategory } from '../../../helpers/catalog.js';
import { decodeBundle } from '../../../../emulator/bundle/envelope.js';
import { restoreBundle } from '../../../../emulator/bundle/restore.js';

// GET /catalog/products keeps each product's text until SQLite reports a write to it (emulator/adapters/sqlite/row-watch.ts):
// any write empties the kept pages, but a product is written again only when a write touched it. The
// clock is manual and never moves, so nothing here can lean on updated_at to notice a change.
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await withCategory(emu);
  for (let i = 0; i < 3; i++) {
    const body = product({
      name: `Producto ${i}`,
      option_groups: [{ external_id: `RG-${i}`, name: 'Extras', min_select: 0, max_select: 1, options: [{ external_id: `RO-${i}`, name: 'Queso', price: '1000' }] }],
    });
    expect((await emu.api('PUT', `/catalog/products/R-${i}`, { body })).status).toBe(201);
  }
});
afterAll(() => emu.close());

const db = () => sqliteDb(emu);
const listed = async (code = 'R-0') => {
  const res = await emu.api('GET', '/catalog/products?limit=50');
  expect(res.status).toBe(200);
  return res.body.data.find((p: any) => p.external_id === code);
};
const idOf = async (code: string) => (await listed(code)).id as string;

describe('the products page after a write', () => {
  it('lists an option price patched since the last read', async () => {
    expect((await listed()).option_groups[0].options[0].price).toBe('1000');
    expect((await emu.api('PATCH', '/catalog/options/RO-0', { body: { price: '1500' } })).status).toBe(200);
    expect((await listed()).option_groups[0].options[0].price).toBe('1500');
  });

  it('renders again only the products the write touched', async () => {
    await listed();
    // Every statement run, by its SQL: the page reads the option groups of the products it writes again, by their ids.
    const all = vi.spyOn(Object.getPrototypeOf(db().prepare('SELECT 1')) as { all(...args: unknown[]): unknown[] }, 'all');
    try {
      expect((await emu.api('PATCH', '/catalog/products/R-1', { body: { price: '7777' } })).status).toBe(200);
      expect((await listed('R-1')).price).toBe('7777');
      const groupReads = all.mock.calls.filter((_, i) => /FROM option_groups WHERE product_id IN/.test((all.mock.contexts[i] as { source: string }).source));
      expect(groupReads).toHaveLength(1);
      expect(JSON.parse((groupReads[0]![0] as { ids: string }).ids)).toEqual([await idOf('R-1')]);
    } finally {
      all.mockRestore();
    }
  });

  it.each([
    ['a product row', 'UPDATE products SET name = ? WHERE external_id = ?', 'R-2', (p: any) => p.name],
    ['an option group row', 'UPDATE option_groups SET name = ? WHERE external_id = ?', 'RG-2', (p: any) => p.option_groups[0].name],
    ['an option row', 'UPDATE options SET name = ? WHERE external_id = ?', 'RO-2', (p: any) => p.option_groups[0].options[0].name],
  ])("notices %s written by any statement, not only the adapter's repositories", async (_what, sql, code, read) => {
    await listed('R-2');
    db().prepare(sql).run(`cambiado ${code}`, code);
    expect(read(await listed('R-2'))).toBe(`cambiado ${code}`);
  });

  it("notices a category's external id changing under its products", async () => {
    expect((await listed('R-2')).category_external_id).toBe('CAT-1');
    db().prepare("UPDATE categories SET external_id = 'CAT-X' WHERE external_id = 'CAT-1'").run();
    try {
      expect((await listed('R-2')).category_external_id).toBe('CAT-X');
    } finally {
      db().prepare("UPDATE categories SET external_id = 'CAT-1' WHERE external_id = 'CAT-X'").run();
    }
    expect((await listed('R-2')).category_external_id).toBe('CAT-1');
  });

  it('never answers a deleted product\'s text for a new product that takes its rowid', async () => {
    expect((await emu.api('PUT', '/catalog/products/R-GONE', { body: product({ name: 'Borrado' }) })).status).toBe(201);
    expect((await listed('R-GONE')).name).toBe('Borrado');
    const rowid = db().prepare("SELECT rowid FROM products WHERE external_id = 'R-GONE'").pluck().get();
    db().prepare("DELETE FROM products WHERE external_id = 'R-GONE'").run();
    expect((await emu.api('PUT', '/catalog/products/R-NEW', { body: product({ name: 'Nuevo' }) })).status).toBe(201);
    expect(db().prepare("SELECT rowid FROM products WHERE external_id = 'R-NEW'").pluck().get()).toBe(rowid);
    expect((await listed('R-NEW')).name).toBe('Nuevo');
  });

  it('never answers a text kept before a restore, even when the restored product is changed after each restore', async () => {
    const res = await fetch(`${emu.url}/_emulator/export`);
    const bundle = decodeBundle(Buffer.from(await res.arrayBuffer()));
    const price = async (value: string) => {
      expect((await emu.api('PATCH', '/catalog/products/R-0', { body: { price: value } })).status).toBe(200);
      return (await listed('R-0')).price;
    };
    await restoreBundle(emu.running.emulator, bundle);
    expect(await price('111')).toBe('111');
    await restoreBundle(emu.running.emulator, bundle);
    expect(await price('222')).toBe('222');
  });
});
