import type { Command } from 'commander';
import type { z } from 'zod';
import { externalId } from '../../../contract/common.js';
import { issuesToDetails } from '../../../contract/validation.js';
import { resolveContext, type CliContext } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit, note, printLine } from '../../output.js';
import { renameField } from './file/model.js';

// Shared by the one-item verbs (category set/delete, product set/patch/delete, option patch): local
// validation with the contract before any call, and one line of output per upsert result.

/**
 * Parses with a contract schema or ends the command with exit 2, one line per field on stderr (the
 * contract's messages, as the API would answer them).
 */
export function validOrUsage<T extends z.ZodType>(schema: T, input: unknown, what: string, fieldNames: Record<string, string> = {}): z.output<T> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  for (const d of issuesToDetails(result.error.issues)) {
    note(`${renameField(d.field, fieldNames) || what}: ${d.message} [${d.code}]`);
  }
  throw usageError(`error: invalid ${what}; nothing was sent`);
}

/** The external code of an argument, checked against the spec's pattern. */
export function codeArg(code: string): string {
  return validOrUsage(externalId, code, 'external_id');
}

interface UpsertResult {
  id: string;
  external_id: string;
  result: string;
}

/** Resolves the target, runs the call, prints `data` (`--json`) or one line. */
export async function runUpsert(command: Command, kind: string, call: (ctx: CliContext) => Promise<UpsertResult>): Promise<void> {
  const ctx = await resolveContext(command);
  const data = await call(ctx);
  emit(ctx.json, data, (d) => printLine(`${kind} ${d.external_id}: ${d.result} (${d.id})`));
}
