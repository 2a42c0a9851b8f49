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

export interface Migration {
  version: number;
  name: string;
  up: string;
}

/** Every migration, in order. Add one file per change; never edit a released one. */
export const MIGRATIONS: Migration[] = [core, catalog, orders, webhooks, entregas, productsPageIndex, storeTokens, accessRequests, catalogVersions, lighterWrites, hotOrders, emitAtCommit, admissionReads];
