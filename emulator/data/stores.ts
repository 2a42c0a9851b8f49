import type { Db } from '../store/sqlite/open.js';
import type { PaymentMethod } from '../../src/contract/store.js';

export interface StoreRow {
  id: string;
  slug: string;
  name: string;
  switch_on: number;
  suspended: number;
  payment_methods: string;
  fulfillment_types: string;
  order_seq: number;
  created_at: number;
  updated_at: number;
}

export interface StoreRecord {
  id: string;
  slug: string;
  name: string;
  switchOn: boolean;
  suspended: boolean;
  paymentMethods: PaymentMethod[];
  fulfillmentTypes: ('delivery' | 'pickup')[];
  createdAt: number;
  updatedAt: number;
}

const toRecord = (r: StoreRow): StoreRecord => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  switchOn: r.switch_on === 1,
  suspended: r.suspended === 1,
  paymentMethods: JSON.parse(r.payment_methods),
  fulfillmentTypes: JSON.parse(r.fulfillment_types),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function createStoreStatements(db: Db) {
  const insert = db.prepare(
    `INSERT INTO stores (id, slug, name, switch_on, suspended, payment_methods, fulfillment_types, created_at, updated_at)
     VALUES (@id, @slug, @name, @switch_on, 0, @payment_methods, @fulfillment_types, @now, @now)`,
  );
  const byId = db.prepare<[string], StoreRow>('SELECT * FROM stores WHERE id = ?');
  const bySlug = db.prepare<[string], StoreRow>('SELECT * FROM stores WHERE slug = ?');
  const all = db.prepare<[], StoreRow>('SELECT * FROM stores ORDER BY created_at, id');
  const update = db.prepare(
    `UPDATE stores SET switch_on = @switch_on, suspended = @suspended, payment_methods = @payment_methods,
       fulfillment_types = @fulfillment_types, updated_at = @now WHERE id = @id`,
  );
  const nextNumber = db.prepare<[string], { order_seq: number }>(
    'UPDATE stores SET order_seq = order_seq + 1 WHERE id = ? RETURNING order_seq',
  );
  // EXISTS stops at the first match; COUNT(*) walked every product and ran twice per catalog write.
  const hasActiveProduct = db.prepare<[string], { n: number }>(
    `SELECT EXISTS (SELECT 1 FROM products p JOIN categories c ON c.id = p.category_id
     WHERE p.store_id = ? AND p.active = 1 AND c.active = 1) AS n`,
  );

  return {
    insert(s: { id: string; slug: string; name: string; switchOn: boolean; paymentMethods: PaymentMethod[]; fulfillmentTypes: string[] }, now: number) {
      insert.run({
        id: s.id,
        slug: s.slug,
        name: s.name,
        switch_on: s.switchOn ? 1 : 0,
        payment_methods: JSON.stringify(s.paymentMethods),
        fulfillment_types: JSON.stringify(s.fulfillmentTypes),
        now,
      });
    },
    byId: (id: string) => {
      const row = byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    slugTaken: (slug: string) => bySlug.get(slug) !== undefined,
    all: () => all.all().map(toRecord),
    update(s: StoreRecord, now: number) {
      update.run({
        id: s.id,
        switch_on: s.switchOn ? 1 : 0,
        suspended: s.suspended ? 1 : 0,
        payment_methods: JSON.stringify(s.paymentMethods),
        fulfillment_types: JSON.stringify(s.fulfillmentTypes),
        now,
      });
    },
    /** Sequential per store (spec: Order.number). */
    nextOrderNumber: (storeId: string) => nextNumber.get(storeId)!.order_seq,
    hasActiveProduct: (storeId: string) => hasActiveProduct.get(storeId)!.n > 0,
  };
}
export type StoreStatements = ReturnType<typeof createStoreStatements>;
