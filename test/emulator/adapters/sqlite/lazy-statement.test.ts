import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { prepareLazily } from '../../../../emulator/adapters/sqlite/lazy-statement.js';

// issue 27: the SQLite repositories' statements are prepared on their first use, not when an
// emulator starts. Each must behave as the statement `db.prepare` gives.

let db: Database.Database;
afterEach(() => db?.close());

function table() {
  db = new Database(':memory:');
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT; INSERT INTO t (name) VALUES ('uno'), ('dos');");
  return db;
}

describe('a lazily prepared statement', () => {
  it('runs, gets, lists and iterates like the prepared one', () => {
    const db = table();
    const insert = prepareLazily<[string]>(db, 'INSERT INTO t (name) VALUES (?)');
    expect(insert.run('tres')).toEqual({ changes: 1, lastInsertRowid: 3 });
    const byId = prepareLazily<[number], { id: number; name: string }>(db, 'SELECT * FROM t WHERE id = ?');
    expect(byId.get(3)).toEqual({ id: 3, name: 'tres' });
    const named = prepareLazily<{ name: string }, { id: number }>(db, 'SELECT id FROM t WHERE name = @name');
    expect(named.all({ name: 'dos' })).toEqual([{ id: 2 }]);
    expect([...prepareLazily<[], { id: number }>(db, 'SELECT id FROM t ORDER BY id').iterate()]).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(prepareLazily(db, 'SELECT id, name FROM t').columns().map((c) => c.name)).toEqual(['id', 'name']);
  });

  it('applies the modes set when it was declared (pluck, raw) once prepared, and those set after at once', () => {
    const db = table();
    const names = prepareLazily<[], string>(db, 'SELECT name FROM t ORDER BY id').pluck();
    expect(names.all()).toEqual(['uno', 'dos']);
    const rows = prepareLazily<[], unknown[]>(db, 'SELECT id, name FROM t ORDER BY id').raw(true);
    expect(rows.all()).toEqual([[1, 'uno'], [2, 'dos']]);
    rows.raw(false);
    expect(rows.get()).toEqual({ id: 1, name: 'uno' });
  });

  it('is not prepared until used: a statement on a table made later works, a mistake fails on its first call', () => {
    db = new Database(':memory:');
    const later = prepareLazily<[], number>(db, 'SELECT COUNT(*) FROM later').pluck();
    const wrong = prepareLazily(db, 'SELEC nothing');
    db.exec('CREATE TABLE later (id INTEGER PRIMARY KEY)');
    expect(later.get()).toBe(0);
    expect(() => wrong.run()).toThrow(/syntax error/);
  });
});
