import type { Db } from '../db/open.js';
import { SECRET_CHARS } from '../../src/logging/redact.js';
import type { Cell, EnvironmentDump, TableDump } from './format.js';

// Secrets never enter a bundle: a credential's secret part or a webhook signing secret that shows up
// in any stored text (an idempotent rotate-secret answer, say) is replaced by this marker.
const SECRET = new RegExp(`\\b(?:svs|whsec)_[${SECRET_CHARS}]+`, 'g');
export const REDACTED = '[redacted]';

function scrub(value: string): string {
  return value.includes('svs_') || value.includes('whsec_') ? value.replace(SECRET, REDACTED) : value;
}

function cell(value: unknown): Cell {
  if (Buffer.isBuffer(value)) return { $hex: value.toString('hex') };
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return scrub(value);
  return value as Cell;
}

/** The user tables of a database, in creation order (parents before children). */
export function tableNames(db: Db): string[] {
  return db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
    .all()
    .map((t) => t.name);
}

function dumpTable(db: Db, name: string): TableDump {
  const statement = db.prepare(`SELECT * FROM "${name}"`).raw(true);
  const columns = statement.columns().map((c) => c.name);
  const rows = (statement.all() as unknown[][]).map((row) => row.map(cell));
  if (name === 'webhooks') blankSigningSecrets(columns, rows);
  return { columns, rows };
}

/**
 * Decision (docs/support.md): signing secrets stay out of the bundle; a restore gives every webhook
 * a new one and prints it once, like the fresh credentials.
 */
function blankSigningSecrets(columns: string[], rows: Cell[][]): void {
  const blank: Record<string, Cell> = { secret: '', previous_secret: null, previous_expires_at: null };
  for (const [column, value] of Object.entries(blank)) {
    const i = columns.indexOf(column);
    if (i >= 0) for (const row of rows) row[i] = value;
  }
}

/** One environment's database, read in one transaction so that the tables agree with one another. */
export function dumpDatabase(db: Db): EnvironmentDump {
  return db.transaction(() => {
    const tables: Record<string, TableDump> = {};
    for (const name of tableNames(db)) tables[name] = dumpTable(db, name);
    const hasSequences = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get();
    const sequences: Record<string, number> = {};
    if (hasSequences) {
      for (const s of db.prepare<[], { name: string; seq: number }>('SELECT name, seq FROM sqlite_sequence').all()) sequences[s.name] = s.seq;
    }
    return { schema_version: db.pragma('user_version', { simple: true }) as number, tables, sequences };
  })();
}
