import type { Db } from './open.js';
import type { EnvironmentDump, TableDump } from '../../bundle/format.js';
import { blankSigningSecrets, cell } from '../../bundle/scrub.js';

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
  blankSigningSecrets(name, columns, rows);
  return { columns, rows };
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
