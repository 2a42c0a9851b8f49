import { ROWID, TEXT } from './columns.js';
import type { PgMigration } from './index.js';

// Independent deliveries (courier coordination); amounts are whole guaraníes. See docs/entregas.md.
export const entregas: PgMigration = {
  version: 5,
  name: 'entregas',
  env: `
    CREATE TABLE entregas (
      id ${TEXT} PRIMARY KEY,
      store_id ${TEXT} NOT NULL,
      integration_id ${TEXT} NOT NULL,
      request_key ${TEXT} NOT NULL,
      fingerprint ${TEXT} NOT NULL,
      order_id ${TEXT},
      status ${TEXT} NOT NULL,
      payment_method ${TEXT} NOT NULL,
      customer ${TEXT} NOT NULL,
      address ${TEXT} NOT NULL,
      customer_total bigint NOT NULL,
      customer_fee bigint NOT NULL,
      courier_fee bigint NOT NULL,
      return_fee bigint,
      settlement_confirmed boolean NOT NULL DEFAULT false,
      goods_received boolean NOT NULL DEFAULT false,
      refund_confirmed boolean NOT NULL DEFAULT false,
      transfer_received boolean NOT NULL DEFAULT false,
      cancel_reason ${TEXT},
      notes ${TEXT},
      delivery_code ${TEXT} NOT NULL,
      tracking_token ${TEXT} NOT NULL UNIQUE,
      history ${TEXT} NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      ${ROWID}
    );
    CREATE UNIQUE INDEX entregas_request_key ON entregas(store_id, request_key);
    CREATE INDEX entregas_order ON entregas(order_id);
  `,
};
