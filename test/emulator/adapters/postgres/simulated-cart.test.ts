import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../../helpers/emulator.js';
import { createTestDatabase, PG_URL, type TestDatabase } from '../../../helpers/postgres.js';
import { seedMenu, simulate } from '../../../helpers/orders.js';

// issue 25, fourteenth step: a process keeps each store's orderable products with the store's
// catalog version (emulator/adapters/postgres/orders.ts). A simulated order still draws from the
// catalog as the last committed write left it, made on any process: a product deactivated or sold
// out is never drawn, a new one is, and so for the panel products of the scenario unmapped_product.

interface Line {
  product: { id: string; external_id: string | null };
}

describe.skipIf(!PG_URL)('a simulated order on one process after catalog writes on another', () => {
  let database: TestDatabase;
  let one: TestEmulator;
  let two: TestEmulator;
  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    one = await startTestEmulator({ databaseUrl: database.url });
    two = await startTestEmulator({ databaseUrl: database.url });
    await seedMenu(one);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await database?.drop();
  });

  /** The product codes (a panel product: its id) of `n` orders simulated on the first process. */
  const drawn = async (n: number, body: Record<string, unknown> = {}): Promise<string[]> => {
    const codes = new Set<string>();
    for (let i = 0; i < n; i++) {
      for (const line of (await simulate(one, body)).items as Line[]) codes.add(line.product.external_id ?? line.product.id);
    }
    return [...codes].sort();
  };
  /** A catalog write through the second process, with the first's credential (the same sandbox). */
  const onTwo = async (method: string, path: string, body: unknown) => {
    const res = await two.api(method, path, { body, credential: one.test.credential });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
  };

  it('never draws a product sold out or deactivated there, and draws one added there', async () => {
    expect(['BEB-COCA', 'HB-CLASICA']).toEqual(expect.arrayContaining(await drawn(3)));
    await onTwo('PATCH', '/catalog/products/BEB-COCA', { available: false });
    expect(await drawn(4)).toEqual(['HB-CLASICA']);
    await onTwo('PUT', '/catalog/products/BEB-NUEVA', { name: 'Agua 500 ml', category_external_id: 'CAT-DRINK', price: '6000' });
    await onTwo('PATCH', '/catalog/products/HB-CLASICA', { active: false });
    expect(await drawn(4)).toEqual(['BEB-NUEVA']);
  });

  it('draws a panel product for unmapped_product only while it is orderable there', async () => {
    const made = await two.control('POST', `/stores/${one.test.store_id}/products`, { name: 'Promo del panel', price: '15000', category_name: 'Promos' });
    expect(made.status).toBe(201);
    const panel: string = made.body.data.id;
    const panelLines = async () =>
      ((await simulate(one, { scenario: 'unmapped_product' })).items as Line[]).filter((l) => l.product.external_id === null).map((l) => l.product.id);
    expect(await panelLines()).toEqual([panel]);
    expect((await two.control('PATCH', `/products/${panel}`, { available: false })).status).toBe(200);
    // None orderable: the simulator makes one (DESIGN), and draws it from then on.
    const [made2] = await panelLines();
    expect(made2).toBeDefined();
    expect(made2).not.toBe(panel);
    expect(await panelLines()).toEqual([made2]);
    expect((await two.control('PATCH', `/products/${panel}`, { available: true })).status).toBe(200);
    expect((await two.control('PATCH', `/products/${made2}`, { active: false })).status).toBe(200);
    expect(await panelLines()).toEqual([panel]);
  });
});
