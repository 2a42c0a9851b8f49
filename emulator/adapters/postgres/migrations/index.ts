import { core } from './0001-core.js';
import { catalog } from './0002-catalog.js';
import { orders } from './0003-orders.js';
import { webhooks } from './0004-webhooks.js';
import { entregas } from './0005-entregas.js';
import { productsPageIndex } from './0006-products-page-index.js';
import { storeTokens } from './0007-store-tokens.js';
import { accessRequests } from './0008-access-requests.js';
import { catalogVersions } from './0009-catalog-versions.js';
import { lighterWrites } from './0010-lighter-writes.js';
import { hotOrders } from './0011-hot-orders.js';
import { emitAtCommit } from './0012-emit-at-commit.js';
import { admissionReads } from './0013-admission-reads.js';

/**
 * One step of the schema. `env` runs in each environment's schema, `shared` in the sandbox's shared
 * schema (coordination), both with the search path set to that schema.
 *
 * The versions are the SQLite adapter's, step for step: a bundle's `schema_version` names the same
 * tables and columns on both adapters. Add a step here whenever one is added there (a test checks
 * both lists agree), even when it changes nothing on this side.
 */
export interface PgMigration {
  version: number;
  name: string;
  env: string;
  shared?: string;
}

/** Every migration, in order. Add one file per change; never edit a released one. */
export const MIGRATIONS: PgMigration[] = [core, catalog, orders, webhooks, entregas, productsPageIndex, storeTokens, accessRequests, catalogVersions, lighterWrites, hotOrders, emitAtCommit, admissionReads];
