import type { Db } from './open.js';

/** Empties every table, keeping the schema: the emulator's reset. */
export function resetDatabase(db: Db): void {
  const tables = db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all()
    .map((t) => t.name);
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      for (const name of tables) db.exec(`DELETE FROM "${name}"`);
      if (tables.length) db.exec("DELETE FROM sqlite_sequence");
    })();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
