/**
 * The catalog's domain service: the single endpoints (routes/catalog.ts) and the batch
 * (routes/batch.ts) call these. Each validates its input with the contract, throws `ApiError`, and
 * does all its writes in one `env.tx()` (inside a caller's transaction it joins it).
 */
export { assertCatalogManaged } from './guard.js';
export { upsertCategory, deactivateCategory, type Upserted } from './categories.js';
export { upsertProduct, patchProduct, deactivateProduct } from './products.js';
export { patchOption } from './options.js';
