import type { Repositories } from '../store/port.js';
import { productsWithOptions, type OptionGroupRecord, type OptionRecord, type ProductRecord, type ProductWithOptions } from '../catalog/repository.js';
import type { StoredItem, StoredItemOption } from './repository.js';
import type { SimulatedItem } from '../../src/contract/orders.js';
import { ApiError, type FieldIssue } from '../../src/contract/errors.js';
import { AmountTooLarge, lineTotal } from './totals.js';
import type { Chance } from './chance.js';
import { ITEM_NOTES } from './sample-data.js';

const TOO_LARGE_LINE = 'El total de esta línea supera el máximo que se calcula con exactitud (2^53 − 1 centésimos); pida menos unidades.';

interface Choice {
  option: OptionRecord;
  quantity: number;
}

/** An order line: names and prices copied from the catalog now (spec: Order rule 1); `groups`: the product's. */
function buildItem(line: number, product: ProductRecord, groupList: OptionGroupRecord[], choices: Choice[], quantity: number, notes: string): StoredItem {
  const groups = new Map(groupList.map((g) => [g.id, g]));
  const options: StoredItemOption[] = choices.map(({ option, quantity: q }) => {
    const group = groups.get(option.groupId)!;
    return {
      groupName: group.name, groupExternalId: group.externalId, optionId: option.id, optionExternalId: option.externalId,
      name: option.name, unitPrice: option.price, quantity: q,
    };
  });
  const total = lineTotal({ unitPrice: product.price, quantity, options });
  return {
    line, productId: product.id, productExternalId: product.externalId, sku: product.sku, name: product.name,
    unitPrice: product.price, quantity, options, notes, lineTotal: total,
  };
}

/** The first integration of the store whose code finds something. */
async function byAnyIntegration<T>(r: Repositories, storeId: string, find: (integrationId: string) => Promise<T | undefined>): Promise<T | undefined> {
  for (const integration of await r.integrations.byStore(storeId)) {
    const found = await find(integration.id);
    if (found !== undefined) return found;
  }
  return undefined;
}

async function findProduct(r: Repositories, storeId: string, item: SimulatedItem): Promise<ProductRecord | undefined> {
  if (item.product_id !== undefined) {
    const row = await r.catalog.productById(item.product_id);
    return row && row.storeId === storeId ? row : undefined;
  }
  const code = item.product_external_id!;
  return byAnyIntegration(r, storeId, (id) => r.catalog.productByExternal(id, code));
}

async function findOption(r: Repositories, storeId: string, product: ProductRecord, o: SimulatedItem['options'][number]): Promise<OptionRecord | undefined> {
  const row = o.option_id !== undefined
    ? await r.catalog.optionById(o.option_id)
    : await byAnyIntegration(r, storeId, (id) => r.catalog.optionByExternal(id, o.option_external_id!));
  return row && row.productId === product.id ? row : undefined;
}

/** min_select / max_select of every group, counted in option units per item unit. */
function groupIssues(groups: OptionGroupRecord[], choices: Choice[], field: string): FieldIssue[] {
  return groups.flatMap((g) => {
    const n = choices.filter((c) => c.option.groupId === g.id).reduce((s, c) => s + c.quantity, 0);
    if (n < g.minSelect) return [{ field, code: 'min_select', message: `El grupo "${g.name}" requiere al menos ${g.minSelect} opción(es).` }];
    if (n > g.maxSelect) return [{ field, code: 'max_select', message: `El grupo "${g.name}" admite como máximo ${g.maxSelect} opción(es).` }];
    return [];
  });
}

/**
 * The simulator's explicit items, checked against the current catalog: unknown, inactive or
 * sold-out products and options answer 422 with one `details` entry per problem.
 */
export async function resolveItems(r: Repositories, storeId: string, requested: SimulatedItem[]): Promise<StoredItem[]> {
  const issues: FieldIssue[] = [];
  const items: StoredItem[] = [];
  for (const [i, item] of requested.entries()) {
    const field = `items.${i}.${item.product_id !== undefined ? 'product_id' : 'product_external_id'}`;
    const product = await findProduct(r, storeId, item);
    if (!product) {
      issues.push({ field, code: 'unknown_product', message: 'No existe ese producto en el comercio.' });
      continue;
    }
    const category = await r.catalog.categoryById(product.categoryId);
    if (!product.active || !category?.active) {
      issues.push({ field, code: 'product_inactive', message: `El producto "${product.name}" no está activo en el menú.` });
      continue;
    }
    if (!product.available) {
      issues.push({ field, code: 'product_unavailable', message: `El producto "${product.name}" está agotado.` });
      continue;
    }
    const choices: Choice[] = [];
    for (const [j, o] of item.options.entries()) {
      const optionField = `items.${i}.options.${j}.${o.option_id !== undefined ? 'option_id' : 'option_external_id'}`;
      const option = await findOption(r, storeId, product, o);
      if (!option) issues.push({ field: optionField, code: 'unknown_option', message: 'Esa opción no pertenece al producto.' });
      else if (!option.available) issues.push({ field: optionField, code: 'option_unavailable', message: `La opción "${option.name}" está agotada.` });
      else choices.push({ option, quantity: o.quantity });
    }
    const groups = await r.catalog.groupsOfProducts([product.id]);
    if (choices.length === item.options.length) issues.push(...groupIssues(groups, choices, `items.${i}.options`));
    try {
      items.push(buildItem(i + 1, product, groups, choices, item.quantity, item.notes ?? ''));
    } catch (error) {
      if (!(error instanceof AmountTooLarge)) throw error;
      issues.push({ field: `items.${i}.quantity`, code: 'too_large', message: TOO_LARGE_LINE });
    }
  }
  if (issues.length > 0) throw ApiError.validation(issues, 'El pedido simulado no se puede armar con el catálogo actual.');
  return items;
}

/** A plausible set of option choices for a product, or null when a required group has too few options available. */
function chooseOptions(chance: Chance, { groups, options: all }: ProductWithOptions): Choice[] | null {
  const options = all.filter((o) => o.available);
  const choices: Choice[] = [];
  for (const group of groups) {
    const available = options.filter((o) => o.groupId === group.id);
    if (available.length < group.minSelect) return null;
    const upper = Math.min(group.maxSelect, available.length, group.minSelect + 2);
    const count = chance.int(group.minSelect, Math.max(group.minSelect, upper));
    let room = group.maxSelect - count;
    for (const option of chance.sample(available, count)) {
      // Extra units of one option ("doble queso") only where the group leaves room for them.
      const extra = room > 0 && chance.bool(0.25) ? 1 : 0;
      room -= extra;
      choices.push({ option, quantity: 1 + extra });
    }
  }
  return choices;
}

/**
 * One to three random lines from the given products (already known to be orderable). The first
 * products of the draw come in one read with their groups and options (issue 25); one that cannot be
 * ordered (a required group sold out) makes the draw go on, reading the next one then.
 */
export async function randomItems(r: Repositories, chance: Chance, productIds: readonly string[], lines = chance.int(1, 3)): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  const drawn = chance.sample(productIds, productIds.length);
  const read = new Map((await productsWithOptions(r.catalog, drawn.slice(0, lines))).map((p) => [p.product.id, p]));
  for (const id of drawn) {
    if (items.length >= lines) break;
    const found = read.get(id) ?? (await productsWithOptions(r.catalog, [id]))[0];
    if (!found) continue; // gone since the store's orderable products were read
    const choices = chooseOptions(chance, found);
    if (!choices) continue;
    const notes = chance.bool(0.3) ? chance.pick(ITEM_NOTES) : '';
    items.push(buildItem(items.length + 1, found.product, found.groups, choices, chance.int(1, 3), notes));
  }
  return items;
}

/** Renumbers lines after combining lists. */
export function renumber(items: StoredItem[]): StoredItem[] {
  return items.map((item, i) => ({ ...item, line: i + 1 }));
}
