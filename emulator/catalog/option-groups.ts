import { ApiError, type FieldIssue } from '../../src/contract/errors.js';
import { parseAmount } from '../../src/contract/amounts.js';
import type { OptionGroupInput } from '../../src/contract/catalog.js';
import type { EnvContext } from '../context.js';
import type { OptionGroupRow, OptionRow } from '../data/catalog.js';

/**
 * spec: Product, option groups — codes cannot belong to another product. One `details` entry per
 * code in use elsewhere (dotted path, code `already_used`), checked before anything is written.
 */
export function assertCodesFree(env: EnvContext, integrationId: string, productId: string | null, groups: OptionGroupInput[]): void {
  const issues: FieldIssue[] = [];
  const taken = (row: { product_id: string } | undefined) => row !== undefined && row.product_id !== productId;
  groups.forEach((group, g) => {
    if (taken(env.catalog.groupByExternal.get(integrationId, group.external_id))) {
      issues.push({ field: `option_groups.${g}.external_id`, code: 'already_used', message: 'El código de grupo pertenece a otro producto.' });
    }
    group.options.forEach((option, o) => {
      if (taken(env.catalog.optionByExternal.get(integrationId, option.external_id))) {
        issues.push({
          field: `option_groups.${g}.options.${o}.external_id`, code: 'already_used', message: 'El código de opción pertenece a otro producto.',
        });
      }
    });
  });
  if (issues.length > 0) throw ApiError.validation(issues);
}

/**
 * Replaces the product's option groups with `groups`: those matched by external_id keep their ids
 * (an option may move between groups of the product), the rest are created; groups and options not
 * sent are removed. Answers whether anything changed.
 */
export function replaceOptionGroups(env: EnvContext, integrationId: string, productId: string, groups: OptionGroupInput[]): boolean {
  const groupRows = new Map(env.catalog.groupsOfProduct.all(productId).map((r) => [r.external_id, r]));
  const optionRows = new Map(env.catalog.optionsOfProduct.all(productId).map((r) => [r.external_id, r]));
  const keptGroups = new Set<string>();
  const keptOptions = new Set<string>();
  let changed = false;
  groups.forEach((group, g) => {
    const groupId = upsertGroup(env, integrationId, productId, groupRows.get(group.external_id), group, g, () => (changed = true));
    keptGroups.add(groupId);
    group.options.forEach((option, o) => {
      const row = optionRows.get(option.external_id);
      const next = { group_id: groupId, name: option.name, price: parseAmount(option.price), available: option.available ? 1 : 0, position: o };
      if (!row) {
        const id = env.ids.next('option');
        env.catalog.insertOption.run({ id, product_id: productId, integration_id: integrationId, external_id: option.external_id, ...next });
        keptOptions.add(id);
        changed = true;
        return;
      }
      keptOptions.add(row.id);
      if (differs(row, next)) {
        env.catalog.updateOption.run({ id: row.id, ...next });
        changed = true;
      }
    });
  });
  // Options first: a kept option may have moved out of a group about to go.
  const goneOptions = [...optionRows.values()].filter((row) => !keptOptions.has(row.id));
  goneOptions.forEach((row) => env.catalog.deleteOption.run(row.id));
  const goneGroups = [...groupRows.values()].filter((row) => !keptGroups.has(row.id));
  goneGroups.forEach((row) => env.catalog.deleteGroup.run(row.id));
  return changed || goneOptions.length > 0 || goneGroups.length > 0;
}

function upsertGroup(
  env: EnvContext, integrationId: string, productId: string, row: OptionGroupRow | undefined, group: OptionGroupInput, position: number,
  markChanged: () => void,
): string {
  const next = { name: group.name, min_select: group.min_select, max_select: group.max_select, position };
  if (!row) {
    const id = env.ids.next('optionGroup');
    env.catalog.insertGroup.run({ id, product_id: productId, integration_id: integrationId, external_id: group.external_id, ...next });
    markChanged();
    return id;
  }
  if (differs(row, next)) {
    env.catalog.updateGroup.run({ id: row.id, ...next });
    markChanged();
  }
  return row.id;
}

function differs<T extends object>(row: OptionGroupRow | OptionRow, next: T): boolean {
  return Object.entries(next).some(([key, value]) => (row as unknown as Record<string, unknown>)[key] !== value);
}
