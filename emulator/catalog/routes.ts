import type { FastifyInstance } from 'fastify';
import * as api from '../../src/contract/endpoints.js';
import { parseDate } from '../../src/contract/dates.js';
import { LIMITS } from '../../src/contract/limits.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import type { AuthContext } from '../http/auth.js';
import { JsonText } from '../http/json-text.js';
import { prefetchQuery } from '../http/query.js';
import { assertCatalogManaged } from './guard.js';
import { deactivateCategory, upsertCategory } from './categories.js';
import { deactivateProduct, patchProduct, upsertProduct } from './products.js';
import { patchOption } from './options.js';
import { decodeCursor, page } from './cursor.js';
import { presentCategory } from './present.js';
import { runBatch } from './batch-run.js';
import type { z } from 'zod';
import { sameProductPage, type AdmitRead, type ProductPageQuery } from '../store/port.js';

type ProductsQuery = z.output<NonNullable<typeof api.listProducts.query>>;

/** GET /catalog/products's page arguments but the caller's (a bad cursor or date throws its 400/422). */
function productPageQuery(query: ProductsQuery): ProductPageQuery {
  return {
    since: query.updated_since === undefined ? 0 : parseDate(query.updated_since),
    after: decodeCursor(query.cursor, 'product'),
    limit: query.limit ?? LIMITS.listPageDefault,
    categoryExternalId: query.category_external_id ?? null,
    active: query.active ?? null,
  };
}

/** The products page read with the request's admission (a server database); none when the query is not valid. */
function productsPrefetch({ query }: { query: unknown }): AdmitRead | undefined {
  const parsed = prefetchQuery(api.listProducts.query!, query);
  if (!parsed) return undefined;
  try {
    return { kind: 'products', page: productPageQuery(parsed as ProductsQuery) };
  } catch {
    return undefined;
  }
}

const managed = { guard: (auth: AuthContext) => assertCatalogManaged(auth.integration) };
// The catalog service validates bodies with the same contract schemas (the batch calls it too).
const managedWrite = { ...managed, parsesBodyItself: true };

/** spec: Endpoints — the catalog's single endpoints and POST /catalog/batch. */
export function catalogRoutes(app: FastifyInstance, emulator: Emulator): void {
  apiRoute(app, emulator, api.listCategories, async ({ env, auth, query }) => {
    const limit = query.limit ?? LIMITS.listPageDefault;
    const after = decodeCursor(query.cursor, 'category');
    const since = query.updated_since === undefined ? 0 : parseDate(query.updated_since);
    const rows = await env.store.catalog.listCategories({ storeId: auth.store.id, since, after, limit: limit + 1 });
    const cut = page(rows, limit);
    return { body: { data: cut.rows.map(presentCategory), next_cursor: cut.next_cursor } };
  });

  apiRoute(app, emulator, api.putCategory, async ({ env, auth, params, rawBody }) => {
    const { status, result } = await env.store.tx((tx) => upsertCategory(env, tx, auth.integration, params.external_id, rawBody));
    return ok(result, status);
  }, managedWrite);

  apiRoute(app, emulator, api.deleteCategory, async ({ env, auth, params }) =>
    ok(await env.store.tx((tx) => deactivateCategory(env, tx, auth.integration, params.external_id))), managed);

  // The body comes whole from the storage (an adapter may keep it between writes), or from the
  // request's admission (a server database) when it read this page for this caller.
  apiRoute(app, emulator, api.listProducts, async ({ env, auth, query, request }) => {
    const page = productPageQuery(query);
    const read = request.prefetch?.products;
    const body = read && read.integrationId === auth.integration.id && sameProductPage(read.query, page)
      ? read.body
      : await env.store.catalog.productPage({ integrationId: auth.integration.id, storeId: auth.store.id, ...page });
    return { body: new JsonText(body) };
  }, { prefetch: productsPrefetch });

  apiRoute(app, emulator, api.putProduct, async ({ env, auth, params, query, rawBody }) => {
    const { status, result } = await env.store.tx((tx) => upsertProduct(env, tx, auth.integration, params.external_id, rawBody, query.link_to_id));
    return ok(result, status);
  }, managedWrite);

  apiRoute(app, emulator, api.patchProduct, async ({ env, auth, params, rawBody }) =>
    ok(await env.store.tx((tx) => patchProduct(env, tx, auth.integration, params.external_id, rawBody))), managedWrite);

  apiRoute(app, emulator, api.deleteProduct, async ({ env, auth, params }) =>
    ok(await env.store.tx((tx) => deactivateProduct(env, tx, auth.integration, params.external_id))), managed);

  apiRoute(app, emulator, api.patchOption, async ({ env, auth, params, rawBody }) =>
    ok(await env.store.tx((tx) => patchOption(env, tx, auth.integration, params.external_id, rawBody))), managedWrite);

  // runBatch parses the envelope itself: the operation count (413) comes before any 422 (spec: Limits).
  apiRoute(app, emulator, api.postBatch, async ({ env, auth, rawBody }) => ok(await runBatch(env, emulator, auth.integration, rawBody)), {
    parsesBodyItself: true,
  });
}
