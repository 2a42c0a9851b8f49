import type { TestEmulator, Response } from './emulator.js';

let keySeq = 0;
/** A fresh Idempotency-Key (8 to 100 characters). */
export const newKey = (prefix = 'batch') => `${prefix}-${process.pid}-${++keySeq}-${Math.random().toString(36).slice(2, 8)}`;

export const upsertCategory = (external_id: string, name = `Categoría ${external_id}`, extra: Record<string, unknown> = {}) =>
  ({ op: 'upsert_category', external_id, data: { name, ...extra } });

export const upsertProduct = (external_id: string, category: string, extra: Record<string, unknown> = {}) =>
  ({ op: 'upsert_product', external_id, data: { name: `Producto ${external_id}`, category_external_id: category, price: '15000', ...extra } });

/** A product with `groups` option groups of `options` options each, codes derived from the product's. */
export function productWithOptions(external_id: string, category: string, groups = 2, options = 3) {
  return upsertProduct(external_id, category, {
    option_groups: Array.from({ length: groups }, (_, g) => ({
      external_id: `${external_id}.g${g}`,
      name: `Grupo ${g}`,
      min_select: 0,
      max_select: options,
      options: Array.from({ length: options }, (_, o) => ({ external_id: `${external_id}.g${g}.o${o}`, name: `Opción ${o}`, price: '1000' })),
    })),
  });
}

/** POST /catalog/batch on the sandbox with a fresh key (or the given one). */
export function batch(emu: TestEmulator, body: Record<string, unknown>, options: { key?: string; credential?: string } = {}): Promise<Response> {
  return emu.api('POST', '/catalog/batch', { body, idempotencyKey: options.key ?? newKey(), credential: options.credential });
}

/** Every product of the sandbox store (all pages). */
export async function allProducts(emu: TestEmulator, credential?: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: Response = await emu.api('GET', `/catalog/products?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { credential });
    if (res.status !== 200) throw new Error(`GET /catalog/products answered ${res.status}: ${JSON.stringify(res.body)}`);
    out.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

export async function allCategories(emu: TestEmulator, credential?: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: Response = await emu.api('GET', `/catalog/categories?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { credential });
    if (res.status !== 200) throw new Error(`GET /catalog/categories answered ${res.status}: ${JSON.stringify(res.body)}`);
    out.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}
