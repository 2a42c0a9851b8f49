import type { Migration } from './index.js';

export const catalog: Migration = {
  version: 2,
  name: 'catalog',
  up: `
    CREATE TABLE categories (
      id TEXT PRIMARY KEY,
      store_id TEXT NOT NULL REFERENCES stores(id),
      integration_id TEXT,
      external_id TEXT,
      name TEXT NOT NULL,
      position INTEGER,
      active INTEGER NOT NULL,
      source_updated_at INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX categories_external ON categories(integration_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX categories_store ON categories(store_id, updated_at);

    CREATE TABLE products (
      id TEXT PRIMARY KEY,
      store_id TEXT NOT NULL REFERENCES stores(id),
      integration_id TEXT,
      external_id TEXT,
      category_id TEXT NOT NULL REFERENCES categories(id),
      name TEXT NOT NULL,
      price INTEGER NOT NULL,
      description TEXT,
      sku TEXT,
      active INTEGER NOT NULL,
      available INTEGER NOT NULL,
      position INTEGER,
      photo_url TEXT,
      photo_source TEXT,
      image_status TEXT NOT NULL DEFAULT 'none',
      image_requested_url TEXT,
      image_error TEXT,
      source_updated_at INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX products_external ON products(integration_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX products_store ON products(store_id, id);
    CREATE INDEX products_category ON products(category_id);

    CREATE TABLE option_groups (
      id TEXT PRIMARY KEY,
      product_id TEXT NOT NULL REFERENCES products(id),
      integration_id TEXT,
      external_id TEXT,
      name TEXT NOT NULL,
      min_select INTEGER NOT NULL,
      max_select INTEGER NOT NULL,
      position INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX option_groups_external ON option_groups(integration_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX option_groups_product ON option_groups(product_id, position);

    CREATE TABLE options (
      id TEXT PRIMARY KEY,
      group_id TEXT NOT NULL REFERENCES option_groups(id),
      product_id TEXT NOT NULL REFERENCES products(id),
      integration_id TEXT,
      external_id TEXT,
      name TEXT NOT NULL,
      price INTEGER NOT NULL,
      available INTEGER NOT NULL,
      position INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX options_external ON options(integration_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX options_group ON options(group_id, position);
    -- optionsOfProduct reads a product's options on every write: without this, a batch is quadratic.
    CREATE INDEX options_product ON options(product_id, position);

    CREATE TABLE snapshots (
      integration_id TEXT NOT NULL,
      snapshot_id TEXT NOT NULL,
      sync_run_id TEXT NOT NULL,
      status TEXT NOT NULL,
      last_part INTEGER NOT NULL,
      failed INTEGER NOT NULL DEFAULT 0,
      deactivated INTEGER NOT NULL DEFAULT 0,
      reason TEXT,
      started_at INTEGER NOT NULL,
      PRIMARY KEY (integration_id, snapshot_id)
    ) STRICT;

    CREATE TABLE snapshot_items (
      integration_id TEXT NOT NULL,
      snapshot_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      external_id TEXT NOT NULL,
      PRIMARY KEY (integration_id, snapshot_id, kind, external_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE snapshot_parts (
      integration_id TEXT NOT NULL,
      snapshot_id TEXT NOT NULL,
      part INTEGER NOT NULL,
      fingerprint TEXT NOT NULL,
      response TEXT NOT NULL,
      PRIMARY KEY (integration_id, snapshot_id, part)
    ) STRICT;
  `,
};
