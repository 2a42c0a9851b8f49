import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { migrate, migratedImage, openDatabase, type Db } from '../../../../emulator/adapters/sqlite/open.js';
import { MIGRATIONS, type Migration } from '../../../../emulator/adapters/sqlite/migrations/index.js';
import { SANDBOX_MIGRATIONS } from '../../../../emulator/adapters/sqlite/sandbox-db.js';

// issue 27: a new database starts as a copy of the migration list's result, built once per process,
// instead of running every migration's DDL at every start. It must be the very database that
// migrating from empty gives, and a database that exists already must migrate as before.

const root = mkdtempSync(join(tmpdir(), 'mk-image-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const folder = () => join(root, `d${++n}`);

/** The schema as SQLite keeps it, and the version: what two databases must share to be the same. */
function schemaOf(db: Db) {
  return {
    master: db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all(),
    version: db.pragma('user_version', { simple: true }),
  };
}

/** The reference: every migration run on an empty database, the way a start did it before. */
function migratedFromEmpty(migrations: Migration[]) {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  const schema = schemaOf(db);
  db.close();
  return schema;
}

describe('a new database', () => {
  it.each([
    ['an environment', MIGRATIONS],
    ['the sandbox', SANDBOX_MIGRATIONS],
  ])('of %s in memory has the schema and version of every migration run from empty', (_what, migrations) => {
    const db = openDatabase(null, migrations);
    expect(schemaOf(db)).toEqual(migratedFromEmpty(migrations));
    expect(schemaOf(db).version).toBe(migrations.length);
    db.close();
  });

  it('in a data folder has the same schema, is 0600 and leaves no temp file behind', () => {
    const dir = folder();
    const file = join(dir, 'test.sqlite');
    const db = openDatabase(file);
    expect(schemaOf(db)).toEqual(migratedFromEmpty(MIGRATIONS));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('copies of the image are independent: what one database writes, another does not see', () => {
    const a = openDatabase(null);
    const b = openDatabase(null);
    a.prepare("INSERT INTO stores (id, slug, name, switch_on, suspended, payment_methods, fulfillment_types, created_at, updated_at) VALUES ('str_1', 'uno', 'Uno', 1, 0, '[]', '[]', 0, 0)").run();
    expect(a.prepare('SELECT COUNT(*) AS n FROM stores').get()).toEqual({ n: 1 });
    expect(b.prepare('SELECT COUNT(*) AS n FROM stores').get()).toEqual({ n: 0 });
    expect(openDatabase(null).prepare('SELECT COUNT(*) AS n FROM stores').get()).toEqual({ n: 0 });
    a.close();
    b.close();
  });

  it('has a migration added to the list (the image is built from the list, per list)', () => {
    const later: Migration[] = [...MIGRATIONS, { version: MIGRATIONS.length + 1, name: 'later', up: 'CREATE TABLE later_table (id TEXT PRIMARY KEY) STRICT;' }];
    const image = migratedImage(later);
    expect(image).not.toBe(migratedImage(MIGRATIONS));
    for (const db of [openDatabase(null, later), openDatabase(join(folder(), 'live.sqlite'), later)]) {
      expect(schemaOf(db)).toEqual(migratedFromEmpty(later));
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'later_table'").get()).toEqual({ name: 'later_table' });
      db.close();
    }
  });
});

describe('a database that exists already', () => {
  it('of an older version runs the migrations it lacks, as before, and ends with the same schema', () => {
    const file = join(folder(), 'test.sqlite');
    const old = openDatabase(file, MIGRATIONS.slice(0, 3));
    expect(old.pragma('user_version', { simple: true })).toBe(3);
    old.prepare("INSERT INTO stores (id, slug, name, switch_on, suspended, payment_methods, fulfillment_types, created_at, updated_at) VALUES ('str_1', 'uno', 'Uno', 1, 0, '[]', '[]', 0, 0)").run();
    old.close();
    const db = openDatabase(file);
    expect(schemaOf(db)).toEqual(migratedFromEmpty(MIGRATIONS));
    expect(db.prepare('SELECT id FROM stores').all()).toEqual([{ id: 'str_1' }]);
    db.close();
  });

  it('is opened, never replaced by the image', () => {
    const file = join(folder(), 'test.sqlite');
    const first = openDatabase(file);
    first.prepare("INSERT INTO stores (id, slug, name, switch_on, suspended, payment_methods, fulfillment_types, created_at, updated_at) VALUES ('str_1', 'uno', 'Uno', 1, 0, '[]', '[]', 0, 0)").run();
    first.close();
    const again = openDatabase(file);
    expect(again.prepare('SELECT id FROM stores').all()).toEqual([{ id: 'str_1' }]);
    again.close();
  });
});
