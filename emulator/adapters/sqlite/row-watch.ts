import type { Db } from './open.js';

/**
 * Which rows a write touched, told to this process's caches and the panel's live updates by SQLite
 * itself: temporary triggers (this connection's only: never in the database file, a bundle, or
 * another tool's view of it) call back into JavaScript, so no write path, however it writes (a
 * route, the control API, a restore, a test's own UPDATE), can leave a kept value stale. A write inside a transaction that is then rolled
 * back is reported too: a cache forgets a little more than it had to, never less.
 */
export interface RowWatch {
  /** Moves with every write to a store, integration or credential row (what authentication reads). */
  authVersion(): number;
  /** `listener()` for every write to a store, integration or credential row. */
  onAuthChange(listener: () => void): void;
  /**
   * `forget(rowid)` for every product row whose presented form a write may have changed: the row
   * itself, its option groups and options; `forget(null)` when it may be any product (a category's
   * external id changed).
   */
  onProductChange(forget: (rowid: number | null) => void): void;
  /**
   * `listener(storeId, config)` for every write to a webhook (`config`), delivery or attempt row, with
   * the store it belongs to (null when its integration is gone). The store is looked up in SQL (a
   * callback cannot query the connection that is writing), and only while `wanted()` says so.
   */
  onWebhookChange(listener: (storeId: string | null, config: boolean) => void, wanted: () => boolean): void;
}

const watches = new WeakMap<Db, RowWatch>();

export function rowWatch(db: Db): RowWatch {
  let watch = watches.get(db);
  if (!watch) watches.set(db, (watch = install(db)));
  return watch;
}

// The product a child row belongs to, by rowid (the products page keeps texts by rowid).
const productOf = (side: 'NEW' | 'OLD') => `(SELECT rowid FROM main.products WHERE id = ${side}.product_id)`;

// Option groups and options name their product: a write to one of them changes the product's text.
const childrenOfProducts = (table: string) => `
  CREATE TEMP TRIGGER watch_${table}_insert AFTER INSERT ON main.${table}
    BEGIN SELECT merchant_kit_product_changed(${productOf('NEW')}); END;
  CREATE TEMP TRIGGER watch_${table}_update AFTER UPDATE ON main.${table}
    BEGIN SELECT merchant_kit_product_changed(${productOf('OLD')}), merchant_kit_product_changed(${productOf('NEW')}); END;
  CREATE TEMP TRIGGER watch_${table}_delete AFTER DELETE ON main.${table}
    BEGIN SELECT merchant_kit_product_changed(${productOf('OLD')}); END;`;

// Webhook rows name their store directly (webhooks), through their integration (deliveries) or their
// delivery (attempts); the WHEN clause skips the lookup while nobody wants to know.
const storeOfIntegration = (side: 'NEW' | 'OLD') => `(SELECT store_id FROM main.integrations WHERE id = ${side}.integration_id)`;
const storeOfDelivery = `(SELECT i.store_id FROM main.webhook_deliveries d JOIN main.integrations i ON i.id = d.integration_id
  WHERE d.id = NEW.delivery_id)`;
const webhookTrigger = (name: string, when: string, store: string, config: 0 | 1) => `
  CREATE TEMP TRIGGER watch_${name} ${when} WHEN merchant_kit_webhooks_wanted()
    BEGIN SELECT merchant_kit_webhook_changed(${store}, ${config}); END;`;

const TRIGGERS = `
  CREATE TEMP TRIGGER watch_stores_insert AFTER INSERT ON main.stores BEGIN SELECT merchant_kit_auth_changed(); END;
  -- Every column but order_seq (taking an order number changes nothing authentication reads):
  -- a column added to stores must be listed here.
  CREATE TEMP TRIGGER watch_stores_update AFTER UPDATE OF id, slug, name, switch_on, suspended, payment_methods, fulfillment_types, created_at, updated_at ON main.stores
    BEGIN SELECT merchant_kit_auth_changed(); END;
  CREATE TEMP TRIGGER watch_stores_delete AFTER DELETE ON main.stores BEGIN SELECT merchant_kit_auth_changed(); END;
  CREATE TEMP TRIGGER watch_integrations_insert AFTER INSERT ON main.integrations BEGIN SELECT merchant_kit_auth_changed(); END;
  CREATE TEMP TRIGGER watch_integrations_update AFTER UPDATE ON main.integrations BEGIN SELECT merchant_kit_auth_changed(); END;
  CREATE TEMP TRIGGER watch_integrations_delete AFTER DELETE ON main.integrations BEGIN SELECT merchant_kit_auth_changed(); END;
  CREATE TEMP TRIGGER watch_credentials_insert AFTER INSERT ON main.credentials BEGIN SELECT merchant_kit_auth_changed(); END;
  CREATE TEMP TRIGGER watch_credentials_update AFTER UPDATE ON main.credentials BEGIN SELECT merchant_kit_auth_changed(); END;
  CREATE TEMP TRIGGER watch_credentials_delete AFTER DELETE ON main.credentials BEGIN SELECT merchant_kit_auth_changed(); END;

  -- A new product row has nothing kept under its rowid: a rowid used before was forgotten on delete.
  CREATE TEMP TRIGGER watch_products_update AFTER UPDATE ON main.products
    BEGIN SELECT merchant_kit_product_changed(OLD.rowid), merchant_kit_product_changed(NEW.rowid); END;
  CREATE TEMP TRIGGER watch_products_delete AFTER DELETE ON main.products BEGIN SELECT merchant_kit_product_changed(OLD.rowid); END;
  ${childrenOfProducts('option_groups')}
  ${childrenOfProducts('options')}
  CREATE TEMP TRIGGER watch_categories_update AFTER UPDATE OF id, external_id ON main.categories
    BEGIN SELECT merchant_kit_catalog_changed(); END;
  CREATE TEMP TRIGGER watch_categories_delete AFTER DELETE ON main.categories BEGIN SELECT merchant_kit_catalog_changed(); END;
  ${webhookTrigger('webhooks_insert', 'AFTER INSERT ON main.webhooks', 'NEW.store_id', 1)}
  ${webhookTrigger('webhooks_update', 'AFTER UPDATE ON main.webhooks', 'NEW.store_id', 1)}
  ${webhookTrigger('webhooks_delete', 'AFTER DELETE ON main.webhooks', 'OLD.store_id', 1)}
  ${webhookTrigger('webhook_deliveries_insert', 'AFTER INSERT ON main.webhook_deliveries', storeOfIntegration('NEW'), 0)}
  ${webhookTrigger('webhook_deliveries_update', 'AFTER UPDATE ON main.webhook_deliveries', storeOfIntegration('NEW'), 0)}
  ${webhookTrigger('webhook_attempts_insert', 'AFTER INSERT ON main.webhook_attempts', storeOfDelivery, 0)}
`;

function install(db: Db): RowWatch {
  let auth = 0;
  const authListeners: (() => void)[] = [];
  const productListeners: ((rowid: number | null) => void)[] = [];
  db.function('merchant_kit_auth_changed', { deterministic: false }, () => {
    auth++;
    for (const listener of authListeners) listener();
    return null;
  });
  db.function('merchant_kit_product_changed', { deterministic: false }, (rowid: unknown) => {
    // A child row whose product is gone (a reset deletes products first) names none: nothing to forget.
    if (typeof rowid === 'number' || typeof rowid === 'bigint') for (const forget of productListeners) forget(Number(rowid));
    return null;
  });
  db.function('merchant_kit_catalog_changed', { deterministic: false }, () => {
    for (const forget of productListeners) forget(null);
    return null;
  });
  const webhookListeners: { listener: (storeId: string | null, config: boolean) => void; wanted: () => boolean }[] = [];
  db.function('merchant_kit_webhooks_wanted', { deterministic: false }, () => (webhookListeners.some((l) => l.wanted()) ? 1 : 0));
  db.function('merchant_kit_webhook_changed', { deterministic: false }, (storeId: unknown, config: unknown) => {
    for (const l of webhookListeners) l.listener(typeof storeId === 'string' ? storeId : null, config === 1 || config === 1n);
    return null;
  });
  db.exec(TRIGGERS);
  return {
    authVersion: () => auth,
    onAuthChange: (listener) => void authListeners.push(listener),
    onProductChange: (forget) => void productListeners.push(forget),
    onWebhookChange: (listener, wanted) => void webhookListeners.push({ listener, wanted }),
  };
}
