import type { Check } from './check.js';
import { connection } from './connection.js';
import { catalog } from './catalog.js';
import { orderReception } from './order-reception.js';
import { signatureRejection } from './signature-rejection.js';
import { importCheck } from './import.js';
import { importRecovery } from './import-recovery.js';
import { statuses } from './statuses.js';
import { retries } from './retries.js';
import { ALL_CHECK_IDS } from './types.js';

/** Every check, in the order of DESIGN's ids (later checks use what earlier ones set up); import_recovery is optional. */
export const CHECKS: readonly Check[] = [connection, catalog, orderReception, signatureRejection, importCheck, importRecovery, statuses, retries];

/** The checks named by `--only` (comma-separated ids); throws a one-line message for an unknown id. */
export function selectChecks(only: string | undefined): Check[] {
  if (!only) return [...CHECKS];
  const ids = only.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = ids.filter((id) => !(ALL_CHECK_IDS as readonly string[]).includes(id));
  if (unknown.length) throw new Error(`unknown check id${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (known: ${ALL_CHECK_IDS.join(', ')})`);
  return CHECKS.filter((c) => ids.includes(c.id));
}
