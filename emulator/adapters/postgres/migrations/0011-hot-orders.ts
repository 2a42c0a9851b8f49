import type { PgMigration } from './index.js';

// issue 25 (ninth step: PostgreSQL's side): an order's status change is a HOT update.
// - `orders_updated (store_id, updated_at)` indexed a column every update of an order moves, so no
//   update of an order was HOT: each wrote a new entry in every index of the table (its id, its
//   number, its update time, and while it waits for its ack the waiting index). No plan of the
//   adapter reads it: its pool plans generically (connect.ts), and a generic plan of the list's
//   `($7 IS NULL OR updated_at >= $7)` cannot use it (it reads `orders_number` by the store and the
//   number, in the page's order, and filters). It is dropped.
// - An order row is 1–2 KB (its items, customer and payment as JSON texts): a full page has no room
//   for the new version of a row, and an update that does not fit on its page is not HOT either.
//   New pages of orders are filled to 80 % (room for one new version of a row; the versions a HOT
//   update leaves behind are pruned on the page). Pages written before keep their rows.
// An update that changes the acknowledgement (`ack_status`, the waiting index's condition), the
// number or the external id still writes its index entries. No table or column changed: bundles of
// the previous version restore as they are.
export const hotOrders: PgMigration = {
  version: 11,
  name: 'hot-orders',
  env: `
    DROP INDEX orders_updated;
    ALTER TABLE orders SET (fillfactor = 80);
  `,
};
