import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { PanelProductInput, PanelProductPatch } from '../../src/contract/panel-catalog.js';
import type { Emulator } from '../emulator.js';
import { createPanelProduct, patchPanelProduct } from './panel.js';
import { drainImages } from '../images/background.js';
import { ownedBy, resolvedEnvironment, storeParam } from '../http/control-access.js';
import { requireBody } from '../http/route.js';

const NO_STORE = 'No existe ese comercio.';
const NO_PRODUCT = 'No existe ese producto.';
/** A panel product's store (a store token reaches its own store's products only). */
const productOwner = ownedBy(async (store, request) => (await store.catalog.productById((request.params as { product_id: string }).product_id))?.storeId, NO_PRODUCT);

/** The merchant panel's catalog actions and the image fetcher's drain (DESIGN: control API). */
export function catalogControl(app: FastifyInstance, emulator: Emulator): void {
  app.post<{ Params: { store_id: string } }>('/stores/:store_id/products', storeParam(NO_STORE), async (request, reply) => {
    const storeId = request.params.store_id;
    const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.stores.byId(storeId));
    if (!env) throw ApiError.of('not_found', undefined, NO_STORE);
    const product = await createPanelProduct(env, storeId, requireBody(request.body) as PanelProductInput);
    return reply.code(201).send({ data: product });
  });

  app.patch<{ Params: { product_id: string } }>('/products/:product_id', productOwner, async (request) => {
    const productId = request.params.product_id;
    const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.catalog.productById(productId));
    if (!env) throw ApiError.of('not_found', undefined, NO_PRODUCT);
    return { data: await patchPanelProduct(env, productId, requireBody(request.body) as PanelProductPatch) };
  });

  // Resolves once every pending image download has finished (tests await it instead of sleeping); the
  // downloads of every store: the admin's.
  app.post('/images/drain', async () => ({ data: { drained: await drainImages(emulator) } }));
}

