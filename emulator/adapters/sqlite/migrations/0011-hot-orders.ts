import type { Migration } from './index.js';

// The server adapter's step 11 (the orders' update-time index dropped and room left on their pages,
// so that PostgreSQL updates an order's status in place). SQLite's index and pages stay as they are;
// the step keeps the two lists alike (a bundle's schema_version).
export const hotOrders: Migration = {
  version: 11,
  name: 'hot-orders',
  up: '',
};
