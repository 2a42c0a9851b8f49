import type { Migration } from './index.js';

export const core: Migration = {
  version: 1,
  name: 'core',
  up: `
    CREATE TABLE stores (
      id TEXT PRIMARY KEY,
      slug TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      switch_on INTEGER NOT NULL DEFAULT 1,
      suspended INTEGER NOT NULL DEFAULT 0,
      payment_methods TEXT NOT NULL,
      fulfillment_types TEXT NOT NULL,
      order_seq INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE integrations (
      id TEXT PRIMARY KEY,
      store_id TEXT NOT NULL REFERENCES stores(id),
      system TEXT NOT NULL,
      status TEXT NOT NULL,
      scopes TEXT NOT NULL,
      settings TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX integrations_store ON integrations(store_id);

    CREATE TABLE credentials (
      key_id TEXT PRIMARY KEY,
      integration_id TEXT NOT NULL REFERENCES integrations(id),
      secret_sha256 BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER,
      revoked_at INTEGER
    ) STRICT;
    CREATE INDEX credentials_integration ON credentials(integration_id);

    CREATE TABLE idempotency_keys (
      integration_id TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      state TEXT NOT NULL,
      status_code INTEGER,
      response TEXT,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (integration_id, key)
    ) STRICT;

    CREATE TABLE events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      store_id TEXT NOT NULL,
      integration_id TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      data TEXT NOT NULL
    ) STRICT;
    CREATE INDEX events_integration ON events(integration_id, seq);
    CREATE INDEX events_created ON events(created_at);
  `,
};
