import { ApiError, type FieldIssue } from '../../src/contract/errors.js';
import { parseAmount } from '../../src/contract/amounts.js';
import type { OptionGroupInput } from '../../src/contract/catalog.js';
import type { EnvContext } from '../context.js';
import type { Tx } from '../store/port.js';
import type { OptionGroupRecord, OptionRecord } from './repository.js';

/**
 * spec: Product, option groups — codes cannot belong to another product. One `details` entry per
 * code in use elsewhere (dotted path, code `already_used`), checked before anything is written.
 */
export async function assertCodesFree(tx: Tx, integrationId: string, productId: string | null, groups: OptionGroupInput[]): Promise<void> {
  const issues: FieldIssue[] = [];
  const taken = (row: { productId: string } | undefined) => row !== undefined && row.productId !== productId;
  for (const [g, group] of groups.entries()) {
    if (taken(await tx.catalog.groupByExternal(integrationId, group.external_id))) {
      issues.push({ field: `option_groups.${g}.external_id`, code: 'already_used', message: 'El código de grupo pertenece a otro producto.' });
    }
    for (const [o, option] of group.options.entries()) {
      if (taken(await tx.catalog.optionByExternal(integrationId, option.external_id))) {
        issues.push({
          field: `option_groups.${g}.options.${o}.external_id`, code: 'already_used', message: 'El código de opción pertenece a otro producto.',
        });
      }
    }
  }
  if (issues.length > 0) throw ApiError.validation(issues);
}

/**
 * Replaces the product's option groups with `groups`: those matched by external_id keep their ids
 * (an option may move between groups of the product), the rest are created; groups and options not
 * sent are removed. Answers whether anything changed.
 */
export async function replaceOptionGroups(env: EnvContext, tx: Tx, integrationId: string, productId: string, groups: OptionGroupInput[]): Promise<boolean> {
  const groupRows = new Map((await tx.catalog.groupsOfProducts([productId])).map((r) => [r.externalId, r]));
  const optionRows = new Map((await tx.catalog.optionsOfProducts([productId])).map((r) => [r.externalId, r]));
  const keptGroups = new Set<string>();
  const keptOptions = new Set<string>();
  let changed = false;
  for (const [g, group] of groups.entries()) {
    const groupId = await upsertGroup(env, tx, integrationId, productId, groupRows.get(group.external_id), group, g, () => (changed = true));
    keptGroups.add(groupId);
    for (const [o, option] of group.options.entries()) {
      const row = optionRows.get(option.external_id);
      const next = { groupId, name: option.name, price: parseAmount(option.price), available: option.available, position: o };
      if (!row) {
        const id = env.ids.next('option');
        await tx.catalog.insertOption({ id, productId, integrationId, externalId: option.external_id, ...next });
        keptOptions.add(id);
        changed = true;
        continue;
      }
      keptOptions.add(row.id);
      if (differs(row, next)) {
        await tx.catalog.updateOption({ id: row.id, ...next });
        changed = true;
      }
    }
  }
  // Options first: a kept option may have moved out of a group about to go.
  const goneOptions = [...optionRows.values()].filter((row) => !keptOptions.has(row.id));
  for (const row of goneOptions) await tx.catalog.deleteOption(row.id);
  const goneGroups = [...groupRows.values()].filter((row) => !keptGroups.has(row.id));
  for (const row of goneGroups) await tx.catalog.deleteGroup(row.id);
  return changed || goneOptions.length > 0 || goneGroups.length > 0;
}

async function upsertGroup(
  env: EnvContext, tx: Tx, integrationId: string, productId: string, row: OptionGroupRecord | undefined, group: OptionGroupInput, position: number,
  markChanged: () => void,
): Promise<string> {
  const next = { name: group.name, minSelect: group.min_select, maxSelect: group.max_select, position };
  if (!row) {
    const id = env.ids.next('optionGroup');
    await tx.catalog.insertGroup({ id, productId, integrationId, externalId: group.external_id, ...next });
    markChanged();
    return id;
  }
  if (differs(row, next)) {
    await tx.catalog.updateGroup({ id: row.id, ...next });
    markChanged();
  }
  return row.id;
}

function differs<T extends object>(row: OptionGroupRecord | OptionRecord, next: T): boolean {
  return Object.entries(next).some(([key, value]) => (row as unknown as Record<string, unknown>)[key] !== value);
}
