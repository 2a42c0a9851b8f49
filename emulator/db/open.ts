import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type Db = Database.Database;

/** Opens (or creates) one environment's database and brings it to the latest version. */
export function openDatabase(file: string | null, migrations: Migration[] = MIGRATIONS): Db {
  if (file) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file ?? ':memory:');
  if (file) db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

export function migrate(db: Db, migrations: Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
  });
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length;
  if (current > latest) {
    throw new Error(
      `La base de datos del emulador es de una versión más nueva (${current} > ${latest}); actualice merchant-kit o use otra carpeta --data.`,
    );
  }
  if (current === latest) return;
  db.transaction(() => {
    for (const m of migrations.slice(current)) db.exec(m.up);
    db.pragma(`user_version = ${latest}`);
  })();
}
