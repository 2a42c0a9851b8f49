import type { Migration } from './index.js';

// A store token (`mks_…`, DESIGN: Storage and the team sandbox) opens that store's control routes and
// panel. Only its SHA-256 digest is kept, one per store: issuing a new one replaces the old one.
export const storeTokens: Migration = {
  version: 7,
  name: 'store-tokens',
  up: `
    CREATE TABLE store_tokens (
      store_id TEXT PRIMARY KEY REFERENCES stores(id),
      token_sha256 BLOB NOT NULL UNIQUE,
      created_at INTEGER NOT NULL
    ) STRICT;
  `,
};
