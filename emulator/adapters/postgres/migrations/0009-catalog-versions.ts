import { TEXT } from './columns.js';
import type { PgMigration } from './index.js';

// issue 25: GET /catalog/products on a server database sends the page only when the store's catalog
// changed since the page this process keeps (admission.ts). A store's version is the id of the last
// transaction that wrote its categories, products, option groups or options, set by these triggers at
// its COMMIT (deferred: the row is locked for the COMMIT only, not from a write to the end of its unit
// of work; the trigger fires per row written, and only the first of a transaction writes the row,
// the others find the version already theirs). A transaction id is never handed out
// twice in a cluster, so a version never comes back after a reset or a restore (a reset empties this
// table with the catalog; a restore's rows go through the triggers). No row: the store's catalog is
// empty (every store with a catalog gets one here).
export const catalogVersions: PgMigration = {
  version: 9,
  name: 'catalog-versions',
  env: `
    CREATE TABLE catalog_versions (
      store_id ${TEXT} PRIMARY KEY,
      version bigint NOT NULL
    );
    INSERT INTO catalog_versions (store_id, version)
      SELECT store_id, txid_current() FROM (SELECT store_id FROM categories UNION SELECT store_id FROM products) s;

    CREATE FUNCTION catalog_version_moved(store text) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
      INSERT INTO catalog_versions AS v (store_id, version) SELECT store, txid_current() WHERE store IS NOT NULL
      ON CONFLICT (store_id) DO UPDATE SET version = excluded.version WHERE v.version <> excluded.version
    $$;
    -- Categories and products name their store; option groups and options, their product's.
    CREATE FUNCTION catalog_row_written() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      DECLARE
        r record;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
        IF TG_TABLE_NAME IN ('categories', 'products') THEN
          PERFORM catalog_version_moved(r.store_id);
        ELSE
          PERFORM catalog_version_moved((SELECT p.store_id FROM products p WHERE p.id = r.product_id));
        END IF;
        RETURN NULL;
      END
    $$;
    CREATE CONSTRAINT TRIGGER categories_version AFTER INSERT OR UPDATE OR DELETE ON categories
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalog_row_written();
    CREATE CONSTRAINT TRIGGER products_version AFTER INSERT OR UPDATE OR DELETE ON products
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalog_row_written();
    CREATE CONSTRAINT TRIGGER option_groups_version AFTER INSERT OR UPDATE OR DELETE ON option_groups
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalog_row_written();
    CREATE CONSTRAINT TRIGGER options_version AFTER INSERT OR UPDATE OR DELETE ON options
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalog_row_written();
  `,
};
