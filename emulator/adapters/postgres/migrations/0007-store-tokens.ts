import { DEFERRABLE, ROWID, TEXT } from './columns.js';
import type { PgMigration } from './index.js';

// A store token (`mks_…`, DESIGN: Storage and the team sandbox) opens that store's control routes and
// panel. Only its SHA-256 digest is kept, one per store: issuing a new one replaces the old one. In
// the environment's schema, so that every process of the sandbox knows every token.
export const storeTokens: PgMigration = {
  version: 7,
  name: 'store-tokens',
  env: `
    CREATE TABLE store_tokens (
      store_id ${TEXT} PRIMARY KEY REFERENCES stores(id) ${DEFERRABLE},
      token_sha256 bytea NOT NULL UNIQUE,
      created_at bigint NOT NULL,
      ${ROWID}
    );
  `,
};
