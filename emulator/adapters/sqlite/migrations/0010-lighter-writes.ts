import type { Migration } from './index.js';

// The server adapter's step 10 (partial indexes for the due deliveries and the orders waiting for
// their ack, lz4 for its large texts: less work per write for PostgreSQL). SQLite's indexes and
// storage stay as they are; the step keeps the two lists alike (a bundle's schema_version).
export const lighterWrites: Migration = {
  version: 10,
  name: 'lighter-writes',
  up: '',
};
