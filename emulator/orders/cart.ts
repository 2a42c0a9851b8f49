import type { EnvContext } from '../context.js';
import type { OptionGroupRow, OptionRow, ProductRow } from '../data/catalog.js';
import type { StoredItem, StoredItemOption } from '../data/orders.js';
import type { SimulatedItem } from '../../src/contract/orders.js';
import { ApiError, type FieldIssue } from '../../src/contract/errors.js';
import { lineTotal } from './totals.js';
import type { Chance } from './chance.js';
import { ITEM_NOTES } from './sample-data.js';

interface Choice {
  option: OptionRow;
  quantity: number;
}

/** An order line: names and prices copied from the catalog now (spec: Order rule 1). */
function buildItem(env: EnvContext, line: number, product: ProductRow, choices: Choice[], quantity: number, notes: string): StoredItem {
  const groups = new Map(env.catalog.groupsOfProduct.all(product.id).map((g) => [g.id, g]));
  const options: StoredItemOption[] = choices.map(({ option, quantity: q }) => {
    const group = groups.get(option.group_id)!;
    return {
      groupName: group.name, groupExternalId: group.external_id, optionId: option.id, optionExternalId: option.external_id,
      name: option.name, unitPrice: option.price, quantity: q,
    };
  });
  const total = lineTotal({ unitPrice: product.price, quantity, options });
  return {
    line, productId: product.id, productExternalId: product.external_id, sku: product.sku, name: product.name,
    unitPrice: product.price, quantity, options, notes, lineTotal: total,
  };
}

function findProduct(env: EnvContext, storeId: string, item: SimulatedItem): ProductRow | undefined {
  if (item.product_id !== undefined) {
    const row = env.catalog.productById.get(item.product_id);
    return row && row.store_id === storeId ? row : undefined;
  }
  const code = item.product_external_id!;
  return env.integrations.byStore(storeId).map((i) => env.catalog.productByExternal.get(i.id, code)).find((r) => r !== undefined);
}

function findOption(env: EnvContext, storeId: string, product: ProductRow, o: SimulatedItem['options'][number]): OptionRow | undefined {
  const row = o.option_id !== undefined
    ? env.catalog.optionById.get(o.option_id)
    : env.integrations.byStore(storeId).map((i) => env.catalog.optionByExternal.get(i.id, o.option_external_id!)).find((r) => r !== undefined);
  return row && row.product_id === product.id ? row : undefined;
}

/** min_select / max_select of every group, counted in option units per item unit. */
function groupIssues(groups: OptionGroupRow[], choices: Choice[], field: string): FieldIssue[] {
  return groups.flatMap((g) => {
    const n = choices.filter((c) => c.option.group_id === g.id).reduce((s, c) => s + c.quantity, 0);
    if (n < g.min_select) return [{ field, code: 'min_select', message: `El grupo "${g.name}" requiere al menos ${g.min_select} opción(es).` }];
    if (n > g.max_select) return [{ field, code: 'max_select', message: `El grupo "${g.name}" admite como máximo ${g.max_select} opción(es).` }];
    return [];
  });
}

/**
 * The simulator's explicit items, checked against the current catalog: unknown, inactive or
 * sold-out products and options answer 422 with one `details` entry per problem.
 */
export function resolveItems(env: EnvContext, storeId: string, requested: SimulatedItem[]): StoredItem[] {
  const issues: FieldIssue[] = [];
  const items: StoredItem[] = [];
  requested.forEach((item, i) => {
    const field = `items.${i}.${item.product_id !== undefined ? 'product_id' : 'product_external_id'}`;
    const product = findProduct(env, storeId, item);
    if (!product) return void issues.push({ field, code: 'unknown_product', message: 'No existe ese producto en el comercio.' });
    const category = env.catalog.categoryById.get(product.category_id);
    if (product.active !== 1 || category?.active !== 1) {
      return void issues.push({ field, code: 'product_inactive', message: `El producto "${product.name}" no está activo en el menú.` });
    }
    if (product.available !== 1) {
      return void issues.push({ field, code: 'product_unavailable', message: `El producto "${product.name}" está agotado.` });
    }
    const choices: Choice[] = [];
    item.options.forEach((o, j) => {
      const optionField = `items.${i}.options.${j}.${o.option_id !== undefined ? 'option_id' : 'option_external_id'}`;
      const option = findOption(env, storeId, product, o);
      if (!option) return void issues.push({ field: optionField, code: 'unknown_option', message: 'Esa opción no pertenece al producto.' });
      if (option.available !== 1) return void issues.push({ field: optionField, code: 'option_unavailable', message: `La opción "${option.name}" está agotada.` });
      choices.push({ option, quantity: o.quantity });
    });
    if (choices.length === item.options.length) {
      issues.push(...groupIssues(env.catalog.groupsOfProduct.all(product.id), choices, `items.${i}.options`));
    }
    items.push(buildItem(env, i + 1, product, choices, item.quantity, item.notes ?? ''));
  });
  if (issues.length > 0) throw ApiError.validation(issues, 'El pedido simulado no se puede armar con el catálogo actual.');
  return items;
}

/** A plausible set of option choices for a product, or null when a required group has too few options available. */
function chooseOptions(env: EnvContext, chance: Chance, product: ProductRow): Choice[] | null {
  const options = env.catalog.optionsOfProduct.all(product.id).filter((o) => o.available === 1);
  const choices: Choice[] = [];
  for (const group of env.catalog.groupsOfProduct.all(product.id)) {
    const available = options.filter((o) => o.group_id === group.id);
    if (available.length < group.min_select) return null;
    const upper = Math.min(group.max_select, available.length, group.min_select + 2);
    const count = chance.int(group.min_select, Math.max(group.min_select, upper));
    let room = group.max_select - count;
    for (const option of chance.sample(available, count)) {
      // Extra units of one option ("doble queso") only where the group leaves room for them.
      const extra = room > 0 && chance.bool(0.25) ? 1 : 0;
      room -= extra;
      choices.push({ option, quantity: 1 + extra });
    }
  }
  return choices;
}

/** One to three random lines from the given products (already known to be orderable). */
export function randomItems(env: EnvContext, chance: Chance, productIds: string[], lines = chance.int(1, 3)): StoredItem[] {
  const items: StoredItem[] = [];
  for (const id of chance.sample(productIds, productIds.length)) {
    if (items.length >= lines) break;
    const product = env.catalog.productById.get(id)!;
    const choices = chooseOptions(env, chance, product);
    if (!choices) continue;
    const notes = chance.bool(0.3) ? chance.pick(ITEM_NOTES) : '';
    items.push(buildItem(env, items.length + 1, product, choices, chance.int(1, 3), notes));
  }
  return items;
}

/** Renumbers lines after combining lists. */
export function renumber(items: StoredItem[]): StoredItem[] {
  return items.map((item, i) => ({ ...item, line: i + 1 }));
}
