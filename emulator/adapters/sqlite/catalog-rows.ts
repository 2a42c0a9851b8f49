import type {
  CategoryRecord, ImageStatus, LinkedItem, OptionGroupRecord, OptionRecord, PhotoSource, ProductRecord,
} from '../../catalog/repository.js';

// The catalog's rows as SQLite returns them, and their records: booleans are 0 or 1 in SQLite.

export interface CategoryRow {
  id: string;
  store_id: string;
  integration_id: string | null;
  external_id: string | null;
  name: string;
  position: number | null;
  active: number;
  source_updated_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ProductRow {
  id: string;
  store_id: string;
  integration_id: string | null;
  external_id: string | null;
  category_id: string;
  name: string;
  price: number;
  description: string | null;
  sku: string | null;
  active: number;
  available: number;
  position: number | null;
  photo_url: string | null;
  photo_source: PhotoSource | null;
  image_status: ImageStatus;
  image_requested_url: string | null;
  image_error: string | null;
  source_updated_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface GroupRow {
  id: string;
  product_id: string;
  integration_id: string | null;
  external_id: string | null;
  name: string;
  min_select: number;
  max_select: number;
  position: number;
}

export interface OptionRow {
  id: string;
  group_id: string;
  product_id: string;
  integration_id: string | null;
  external_id: string | null;
  name: string;
  price: number;
  available: number;
  position: number;
}

export const toCategory = (r: CategoryRow): CategoryRecord => ({
  id: r.id,
  storeId: r.store_id,
  integrationId: r.integration_id,
  externalId: r.external_id,
  name: r.name,
  position: r.position,
  active: r.active === 1,
  sourceUpdatedAt: r.source_updated_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toProduct = (r: ProductRow): ProductRecord => ({
  id: r.id,
  storeId: r.store_id,
  integrationId: r.integration_id,
  externalId: r.external_id,
  categoryId: r.category_id,
  name: r.name,
  price: r.price,
  description: r.description,
  sku: r.sku,
  active: r.active === 1,
  available: r.available === 1,
  position: r.position,
  photoUrl: r.photo_url,
  photoSource: r.photo_source,
  imageStatus: r.image_status,
  imageRequestedUrl: r.image_requested_url,
  imageError: r.image_error,
  sourceUpdatedAt: r.source_updated_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const productParams = (p: Omit<ProductRecord, 'storeId' | 'createdAt'> & Partial<Pick<ProductRecord, 'storeId' | 'createdAt'>>) => ({
  id: p.id,
  store_id: p.storeId,
  integration_id: p.integrationId,
  external_id: p.externalId,
  category_id: p.categoryId,
  name: p.name,
  price: p.price,
  description: p.description,
  sku: p.sku,
  active: p.active ? 1 : 0,
  available: p.available ? 1 : 0,
  position: p.position,
  photo_url: p.photoUrl,
  photo_source: p.photoSource,
  image_status: p.imageStatus,
  image_requested_url: p.imageRequestedUrl,
  image_error: p.imageError,
  source_updated_at: p.sourceUpdatedAt,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

export const toGroup = (r: GroupRow): OptionGroupRecord => ({
  id: r.id,
  productId: r.product_id,
  integrationId: r.integration_id,
  externalId: r.external_id,
  name: r.name,
  minSelect: r.min_select,
  maxSelect: r.max_select,
  position: r.position,
});

export const toOption = (r: OptionRow): OptionRecord => ({
  id: r.id,
  groupId: r.group_id,
  productId: r.product_id,
  integrationId: r.integration_id,
  externalId: r.external_id,
  name: r.name,
  price: r.price,
  available: r.available === 1,
  position: r.position,
});

export const linked = (r: LinkedRow): LinkedItem => ({ id: r.id, externalId: r.external_id, active: r.active === 1 });
export const one = <R, T>(map: (r: R) => T) => (row: R | undefined): T | undefined => (row ? map(row) : undefined);

/** What the missing-items policy reads of a linked row. */
export type LinkedRow = { id: string; external_id: string; active: number };
