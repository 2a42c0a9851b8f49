import type { Migration } from './index.js';

// Independent deliveries (courier coordination); amounts are whole guaraníes. See docs/entregas.md.
export const entregas: Migration = {
  version: 5,
  name: 'entregas',
  up: `
    CREATE TABLE entregas (
      id TEXT PRIMARY KEY,
      store_id TEXT NOT NULL,
      integration_id TEXT NOT NULL,
      request_key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      order_id TEXT,
      status TEXT NOT NULL,
      payment_method TEXT NOT NULL,
      customer TEXT NOT NULL,
      address TEXT NOT NULL,
      customer_total INTEGER NOT NULL,
      customer_fee INTEGER NOT NULL,
      courier_fee INTEGER NOT NULL,
      return_fee INTEGER,
      settlement_confirmed INTEGER NOT NULL DEFAULT 0,
      goods_received INTEGER NOT NULL DEFAULT 0,
      refund_confirmed INTEGER NOT NULL DEFAULT 0,
      transfer_received INTEGER NOT NULL DEFAULT 0,
      cancel_reason TEXT,
      notes TEXT,
      delivery_code TEXT NOT NULL,
      tracking_token TEXT NOT NULL UNIQUE,
      history TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX entregas_request_key ON entregas(store_id, request_key);
    CREATE INDEX entregas_order ON entregas(order_id);
  `,
};
