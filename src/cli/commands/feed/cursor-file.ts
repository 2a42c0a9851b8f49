import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ExitError } from '../../errors.js';
import { writeFileAtomic } from '../../../files/atomic.js';

/**
 * What `feed tail` and `listen --backfill` keep between runs. The feed's cursor is opaque and
 * marks page ends only, so the ids handled after it are kept too: a restart in the middle of a
 * page skips exactly those and nothing else.
 */
export interface CursorState {
  version: 1;
  /** The integration the cursor belongs to (GET /me): a file of another one is refused. */
  integration_id: string | null;
  /** The `next_cursor` of the last page fully handled; null: start at the oldest available event. */
  cursor: string | null;
  /** `created_at` of the last event read from the feed; `updated_since` of a reconciliation. */
  last_event_at: string | null;
  /** When this file was first written; `updated_since` when no event was ever read. */
  started_at: string;
  /** Events of the page after `cursor` already handled (forwarded, printed or skipped). */
  page_done: string[];
  /** `listen` only: the newest event ids handled from either source, oldest first, bounded. */
  seen: string[];
}

/** How many handled ids `listen` remembers across restarts (about 300 KB of file). */
export const SEEN_LIMIT = 10_000;

export function emptyState(now: Date = new Date()): CursorState {
  return { version: 1, integration_id: null, cursor: null, last_event_at: null, started_at: now.toISOString(), page_done: [], seen: [] };
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const nullableString = (v: unknown): v is string | null => v === null || typeof v === 'string';

/** The saved state, a fresh one when the file does not exist; anything else unreadable exits 1 with one line. */
export function readCursorFile(file: string): CursorState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // No file yet (or no folder: the first write will say why it cannot be made).
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return emptyState();
    throw new ExitError(`Cannot read the cursor file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
  let value: Partial<CursorState>;
  try {
    value = JSON.parse(text) as Partial<CursorState>;
  } catch {
    value = {};
  }
  const ok =
    value !== null && typeof value === 'object' && value.version === 1 &&
    nullableString(value.integration_id) && nullableString(value.cursor) && nullableString(value.last_event_at) &&
    typeof value.started_at === 'string' && strings(value.page_done) && strings(value.seen);
  if (!ok) throw new ExitError(`${file} is not a merchant-kit cursor file: pick another --cursor-file or delete it to start from the oldest event.`);
  return value as CursorState;
}

/**
 * Writes the whole state atomically (src/files/atomic.ts: a temporary file beside `file`, flushed,
 * renamed over it), so a crash leaves either the old state or the new one. Synchronous on purpose: two writes can never interleave, and the caller knows the state is on disk when it
 * returns. A failure exits 1 with one line; the previous file is left as it was.
 */
export function writeCursorFile(file: string, state: CursorState): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomic(file, `${JSON.stringify(state)}\n`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ExitError(`Cannot write the cursor file ${file} (${code}): stopped at the last position saved there.`);
  }
}

/** The one state this run works from: the file's (checked against the integration), or a fresh one in memory. */
export function loadState(file: string | undefined, integrationId: string): { state: CursorState; save: () => void } {
  const state = file ? readCursorFile(file) : emptyState();
  if (state.integration_id !== null && state.integration_id !== integrationId) {
    throw new ExitError(`The cursor file ${file} belongs to integration ${state.integration_id}, not ${integrationId}: pick another --cursor-file.`);
  }
  state.integration_id = integrationId;
  const save = file ? () => writeCursorFile(file, state) : () => {};
  // Written at once: a file that cannot be written stops the run before anything is read.
  save();
  return { state, save };
}

/** Appends ids to a bounded list of the newest ones, oldest dropped first. */
export function remember(list: string[], id: string, limit: number = SEEN_LIMIT): void {
  list.push(id);
  if (list.length > limit) list.splice(0, list.length - limit);
}
