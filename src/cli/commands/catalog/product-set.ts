import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { productInput } from '../../../contract/catalog.js';
import { usageError } from '../../errors.js';
import { codeArg, runUpsert, validOrUsage } from './single.js';

interface ProductSetOptions {
  file?: string;
  name?: string;
  category?: string;
  price?: string;
  description?: string;
  sku?: string;
  position?: number;
  imageUrl?: string;
  inactive?: boolean;
  unavailable?: boolean;
}

const FLAG_NAMES = { name: '--name', category_external_id: '--category', price: '--price', description: '--description', sku: '--sku', position: '--position', image_url: '--image-url' };

/**
 * `catalog product set <external_id> (--file product.json | --name --category --price …)`: PUT
 * /catalog/products/{external_id}. The file holds one product as in the catalog file (its
 * `external_id`, if present, must be the argument's).
 */
export async function productSetAction(code: string, options: ProductSetOptions, command: Command): Promise<void> {
  const externalId = codeArg(code);
  const flagsGiven = ['name', 'category', 'price', 'description', 'sku', 'position', 'imageUrl', 'inactive', 'unavailable'].some((k) => options[k as keyof ProductSetOptions] !== undefined);
  if (options.file && flagsGiven) throw usageError('error: give either --file or the product flags (--name, --category, --price, …), not both');
  const input = options.file ? await fromFile(options.file, externalId) : fromFlags(options);
  const body = validOrUsage(productInput, input, 'product', options.file ? {} : FLAG_NAMES);
  await runUpsert(command, 'product', (ctx) => ctx.client().catalog.products.put(externalId, body));
}

function fromFlags(o: ProductSetOptions): Record<string, unknown> {
  return {
    name: o.name, category_external_id: o.category, price: o.price, description: o.description, sku: o.sku, position: o.position,
    image_url: o.imageUrl, active: !o.inactive, available: !o.unavailable,
  };
}

async function fromFile(file: string, externalId: string): Promise<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw usageError(`error: ${file}: ${e.code === 'ENOENT' ? 'no such file' : e instanceof SyntaxError ? `not valid JSON: ${e.message}` : `cannot read it (${e.code})`}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw usageError(`error: ${file}: expected one product as a JSON object`);
  const { external_id: code, ...rest } = value as Record<string, unknown>;
  if (code !== undefined && code !== externalId) throw usageError(`error: ${file}: external_id is ${JSON.stringify(code)} but the command names ${externalId}`);
  return rest;
}
