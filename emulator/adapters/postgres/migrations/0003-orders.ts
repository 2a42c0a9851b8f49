import { DEFERRABLE, ROWID, TEXT } from './columns.js';
import type { PgMigration } from './index.js';

// Items, customer, address and payment are JSON texts of the order row (spec: Order rule 1).
export const orders: PgMigration = {
  version: 3,
  name: 'orders',
  env: `
    CREATE TABLE orders (
      id ${TEXT} PRIMARY KEY,
      store_id ${TEXT} NOT NULL REFERENCES stores(id) ${DEFERRABLE},
      number bigint NOT NULL,
      status ${TEXT} NOT NULL,
      status_reason ${TEXT},
      fulfillment_type ${TEXT} NOT NULL,
      estimated_minutes bigint,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      scheduled_for bigint,
      customer ${TEXT} NOT NULL,
      delivery_address ${TEXT},
      payment ${TEXT} NOT NULL,
      payment_status ${TEXT} NOT NULL,
      items ${TEXT} NOT NULL,
      notes ${TEXT} NOT NULL,
      subtotal bigint NOT NULL,
      delivery_fee bigint NOT NULL,
      discount bigint NOT NULL,
      total bigint NOT NULL,
      ack_status ${TEXT} NOT NULL,
      external_id ${TEXT},
      external_number ${TEXT},
      acknowledged_at bigint,
      ack_integration_id ${TEXT},
      last_import_error ${TEXT},
      accepted_at bigint,
      ${ROWID}
    );
    CREATE UNIQUE INDEX orders_number ON orders(store_id, number);
    CREATE UNIQUE INDEX orders_external ON orders(store_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX orders_updated ON orders(store_id, updated_at);
    CREATE INDEX orders_ack ON orders(store_id, ack_status);

    CREATE TABLE order_status_history (
      order_id ${TEXT} NOT NULL REFERENCES orders(id) ${DEFERRABLE},
      seq bigint NOT NULL,
      status ${TEXT} NOT NULL,
      at bigint NOT NULL,
      by ${TEXT} NOT NULL,
      integration_id ${TEXT},
      reason ${TEXT},
      PRIMARY KEY (order_id, seq)
    );
  `,
};
