import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { externalId, listEnvelope, singleEnvelope } from './common.js';
import { meContext, store, storePatch } from './store.js';
import {
  batchRequest,
  batchResponse,
  category,
  categoryInput,
  categoryListQuery,
  optionPatch,
  product,
  productInput,
  productListQuery,
  productPatch,
  productPutQuery,
  upsertResult,
} from './catalog.js';

// `.` and `..` are codes too, but never a path segment (URLs drop dot segments, `%2E` included): the
// document says so for the path; such items are reachable through the batch only.
const byExternalId = z.strictObject({ external_id: externalId.meta({ not: { enum: ['.', '..'] } }) });

// spec: Endpoints — store and integration context
export const getMe = endpoint({
  id: 'getMe', method: 'GET', path: '/me', summary: 'Contexto de la integración', scope: null, idempotency: 'none',
  status: 200, response: singleEnvelope(meContext), errors: [],
});
export const getStore = endpoint({
  id: 'getStore', method: 'GET', path: '/store', summary: 'Datos del comercio', scope: 'store:read', idempotency: 'none',
  status: 200, response: singleEnvelope(store), errors: [],
});
export const patchStore = endpoint({
  id: 'patchStore', method: 'PATCH', path: '/store', summary: 'Abrir o pausar la recepción de pedidos', scope: 'store:write',
  idempotency: 'optional', body: storePatch, status: 200, response: singleEnvelope(store), errors: ['validation_failed'],
});

// spec: Endpoints — catalog
export const listCategories = endpoint({
  id: 'listCategories', method: 'GET', path: '/catalog/categories', summary: 'Listar categorías', scope: 'catalog:read',
  idempotency: 'none', query: categoryListQuery, status: 200, response: listEnvelope(category), errors: ['invalid_cursor', 'validation_failed'],
});
export const putCategory = endpoint({
  id: 'putCategory', method: 'PUT', path: '/catalog/categories/{external_id}', summary: 'Crear o actualizar una categoría',
  scope: 'catalog:write', idempotency: 'none', params: byExternalId, body: categoryInput, status: 201, alsoStatus: [200],
  response: singleEnvelope(upsertResult), errors: ['field_not_managed', 'validation_failed', 'category_not_empty'],
});
export const deleteCategory = endpoint({
  id: 'deleteCategory', method: 'DELETE', path: '/catalog/categories/{external_id}', summary: 'Desactivar una categoría',
  scope: 'catalog:write', idempotency: 'none', params: byExternalId, status: 200, response: singleEnvelope(upsertResult),
  errors: ['field_not_managed', 'not_found', 'category_not_empty'],
});
export const listProducts = endpoint({
  id: 'listProducts', method: 'GET', path: '/catalog/products', summary: 'Listar productos con sus grupos de opciones',
  scope: 'catalog:read', idempotency: 'none', query: productListQuery, status: 200, response: listEnvelope(product),
  errors: ['invalid_cursor', 'validation_failed'],
});
export const putProduct = endpoint({
  id: 'putProduct', method: 'PUT', path: '/catalog/products/{external_id}', summary: 'Crear o actualizar un producto',
  scope: 'catalog:write', idempotency: 'none', params: byExternalId, query: productPutQuery, body: productInput, status: 201,
  alsoStatus: [200], response: singleEnvelope(upsertResult), errors: ['field_not_managed', 'already_linked', 'validation_failed'],
});
export const patchProduct = endpoint({
  id: 'patchProduct', method: 'PATCH', path: '/catalog/products/{external_id}', summary: 'Cambiar precio, disponibilidad o estado',
  scope: 'catalog:write', idempotency: 'optional', params: byExternalId, body: productPatch, status: 200,
  response: singleEnvelope(upsertResult), errors: ['field_not_managed', 'not_found', 'validation_failed'],
});
export const deleteProduct = endpoint({
  id: 'deleteProduct', method: 'DELETE', path: '/catalog/products/{external_id}', summary: 'Desactivar un producto',
  scope: 'catalog:write', idempotency: 'none', params: byExternalId, status: 200, response: singleEnvelope(upsertResult),
  errors: ['field_not_managed', 'not_found'],
});
export const patchOption = endpoint({
  id: 'patchOption', method: 'PATCH', path: '/catalog/options/{external_id}', summary: 'Cambiar precio o disponibilidad de una opción',
  scope: 'catalog:write', idempotency: 'optional', params: byExternalId, body: optionPatch, status: 200,
  response: singleEnvelope(upsertResult), errors: ['field_not_managed', 'not_found', 'validation_failed'],
});
export const postBatch = endpoint({
  id: 'postBatch', method: 'POST', path: '/catalog/batch', summary: 'Lote de operaciones de catálogo (e instantánea completa)',
  scope: 'catalog:write', idempotency: 'required', body: batchRequest, status: 200, response: singleEnvelope(batchResponse),
  errors: ['field_not_managed', 'batch_in_progress', 'snapshot_closed', 'snapshot_out_of_order', 'payload_too_large', 'validation_failed'],
});

export const CORE_ENDPOINTS = [
  getMe, getStore, patchStore, listCategories, putCategory, deleteCategory, listProducts, putProduct, patchProduct,
  deleteProduct, patchOption, postBatch,
];
