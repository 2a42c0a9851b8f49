import type { Migration } from './index.js';

/**
 * Orders keep copies of what was bought (spec: Order rule 1), so items, customer, address and
 * payment are JSON of the order row; the history is its own table, in insertion order.
 */
export const orders: Migration = {
  version: 3,
  name: 'orders',
  up: `
    CREATE TABLE orders (
      id TEXT PRIMARY KEY,
      store_id TEXT NOT NULL REFERENCES stores(id),
      number INTEGER NOT NULL,
      status TEXT NOT NULL,
      status_reason TEXT,
      fulfillment_type TEXT NOT NULL,
      estimated_minutes INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      scheduled_for INTEGER,
      customer TEXT NOT NULL,
      delivery_address TEXT,
      payment TEXT NOT NULL,
      payment_status TEXT NOT NULL,
      items TEXT NOT NULL,
      notes TEXT NOT NULL,
      subtotal INTEGER NOT NULL,
      delivery_fee INTEGER NOT NULL,
      discount INTEGER NOT NULL,
      total INTEGER NOT NULL,
      ack_status TEXT NOT NULL,
      external_id TEXT,
      external_number TEXT,
      acknowledged_at INTEGER,
      ack_integration_id TEXT,
      last_import_error TEXT,
      accepted_at INTEGER
    ) STRICT;
    CREATE UNIQUE INDEX orders_number ON orders(store_id, number);
    CREATE UNIQUE INDEX orders_external ON orders(store_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX orders_updated ON orders(store_id, updated_at);
    CREATE INDEX orders_ack ON orders(store_id, ack_status);

    CREATE TABLE order_status_history (
      order_id TEXT NOT NULL REFERENCES orders(id),
      seq INTEGER NOT NULL,
      status TEXT NOT NULL,
      at INTEGER NOT NULL,
      by TEXT NOT NULL,
      integration_id TEXT,
      reason TEXT,
      PRIMARY KEY (order_id, seq)
    ) STRICT, WITHOUT ROWID;
  `,
};
