import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import * as api from '../../src/contract/endpoints.js';
import { parseDate } from '../../src/contract/dates.js';
import { LIMITS } from '../../src/contract/limits.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import type { AuthContext } from '../http/auth.js';
import * as catalog from '../catalog/service.js';
import { decodeCursor, page } from '../catalog/cursor.js';
import { presentCategory, productPageBody, productPageEntries } from '../present/catalog.js';
import { JsonText } from '../http/json-text.js';

type ProductQuery = z.output<NonNullable<(typeof api.listProducts)['query']>>;

const managed = { guard: (auth: AuthContext) => catalog.assertCatalogManaged(auth.integration) };
// The catalog service validates bodies with the same contract schemas (the batch calls it too).
const managedWrite = { ...managed, parsesBodyItself: true };

/** spec: Endpoints — the catalog's single endpoints (POST /catalog/batch lives in routes/batch.ts). */
export function catalogRoutes(app: FastifyInstance, env: EnvContext, emulator: Emulator): void {
  apiRoute(app, env, emulator, api.listCategories, ({ auth, query }) => {
    const limit = query.limit ?? LIMITS.listPageDefault;
    const after = decodeCursor(query.cursor, 'category');
    const since = query.updated_since === undefined ? 0 : parseDate(query.updated_since);
    const rows = env.catalog.listCategories.all({ store_id: auth.store.id, since, after, limit: limit + 1 });
    const cut = page(rows, limit);
    return { body: { data: cut.rows.map(presentCategory), next_cursor: cut.next_cursor } };
  });

  apiRoute(app, env, emulator, api.putCategory, ({ auth, params, rawBody }) => {
    const { status, result } = catalog.upsertCategory(env, auth.integration, params.external_id, rawBody);
    return ok(result, status);
  }, managedWrite);

  apiRoute(app, env, emulator, api.deleteCategory, ({ auth, params }) =>
    ok(catalog.deactivateCategory(env, auth.integration, params.external_id)), managed);

  apiRoute(app, env, emulator, api.listProducts, ({ auth, query }) => {
    const limit = query.limit ?? LIMITS.listPageDefault;
    const after = decodeCursor(query.cursor, 'product');
    // The page's body is kept until the database changes (present/catalog.ts), under every input of it.
    const key = JSON.stringify([auth.integration.id, auth.store.id, limit, after, query.category_external_id ?? null, query.updated_since ?? null, query.active ?? null]);
    return { body: new JsonText(productPageBody(env, key, () => productPage(env, auth, query, limit, after))) };
  });

  apiRoute(app, env, emulator, api.putProduct, ({ auth, params, query, rawBody }) => {
    const { status, result } = catalog.upsertProduct(env, auth.integration, params.external_id, rawBody, query.link_to_id);
    return ok(result, status);
  }, managedWrite);

  apiRoute(app, env, emulator, api.patchProduct, ({ auth, params, rawBody }) =>
    ok(catalog.patchProduct(env, auth.integration, params.external_id, rawBody)), managedWrite);

  apiRoute(app, env, emulator, api.deleteProduct, ({ auth, params }) =>
    ok(catalog.deactivateProduct(env, auth.integration, params.external_id)), managed);

  apiRoute(app, env, emulator, api.patchOption, ({ auth, params, rawBody }) =>
    ok(catalog.patchOption(env, auth.integration, params.external_id, rawBody)), managedWrite);
}

const EMPTY_PAGE = Buffer.from('{"data":[],"next_cursor":null}');
const DATA_OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');

/**
 * GET /catalog/products's `{"data":[…],"next_cursor":…}` body: the kept texts of the page's
 * products (present/catalog.ts) joined as bytes, so nothing is encoded again on the way out.
 */
function productPage(env: EnvContext, auth: AuthContext, query: ProductQuery, limit: number, after: string): Buffer {
  let categoryId: string | null = null;
  if (query.category_external_id !== undefined) {
    const category = env.catalog.categoryByExternal.get(auth.integration.id, query.category_external_id);
    // An unknown category filters everything out, as a filter does.
    if (!category) return EMPTY_PAGE;
    categoryId = category.id;
  }
  const entries = productPageEntries(env, {
    store_id: auth.store.id,
    since: query.updated_since === undefined ? 0 : parseDate(query.updated_since),
    after,
    limit: limit + 1,
    category_id: categoryId,
    active: query.active === undefined ? null : Number(query.active),
  });
  const cut = page(entries, limit);
  const parts: Buffer[] = [DATA_OPEN];
  cut.rows.forEach((entry, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(entry.bytes);
  });
  parts.push(Buffer.from(`],"next_cursor":${JSON.stringify(cut.next_cursor)}}`));
  return Buffer.concat(parts);
}
