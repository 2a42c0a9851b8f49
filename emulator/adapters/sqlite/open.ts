import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, linkSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { secureDataDir } from './data-dir.js';

export type Db = Database.Database;

function secureFiles(file: string): void {
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}

/**
 * Each migration list's database as running it from empty leaves it, built once per process and kept
 * as SQLite's serialized image. A new database (in memory, or a data folder's file that does not
 * exist yet) starts as a copy of it instead of running the DDL again: the tests start hundreds of
 * emulators, each with three databases (bench/emulator-start.mjs). Built from the list at run time,
 * never checked in, so a migration added later is in it; a database that already exists migrates
 * as before. The image carries the version (`user_version`) like a migrated database.
 */
const templates = new WeakMap<Migration[], Buffer>();

export function migratedImage(migrations: Migration[]): Buffer {
  let image = templates.get(migrations);
  if (!image) {
    const db = new Database(':memory:');
    try {
      db.pragma('foreign_keys = ON');
      migrate(db, migrations);
      image = db.serialize();
    } finally {
      db.close();
    }
    templates.set(migrations, image);
  }
  return image;
}

/**
 * A data folder's new database file, written whole from the image: through a temp file and a hard
 * link, so that no process ever opens a half-written file, and a file that appeared meanwhile (another
 * start on the same folder) is left to it.
 */
function createFromImage(file: string, image: Buffer): void {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  writeFileSync(temp, image, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, file);
  } catch {
    // EEXIST: another start made it first. Any other (a file system without hard links: some
    // network and container mounts): no file is made here, and SQLite creates it and runs the
    // migrations in place, as before the image existed.
  } finally {
    unlinkSync(temp);
  }
}

/** Opens (or creates) one environment's database and brings it to the latest version. */
export function openDatabase(file: string | null, migrations: Migration[] = MIGRATIONS): Db {
  if (file) {
    secureDataDir(dirname(file));
    if (!existsSync(file)) createFromImage(file, migratedImage(migrations));
    closeSync(openSync(file, 'a', 0o600));
    secureFiles(file);
  }
  const db = new Database(file ?? migratedImage(migrations));
  try {
    if (file) {
      db.pragma('journal_mode = WAL');
      secureFiles(file);
      checkIntact(db, file);
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, migrations);
  } catch (error) {
    db.close();
    const code = String((error as { code?: unknown }).code ?? '');
    if (file && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))) throw damaged(file, [(error as Error).message]);
    throw error;
  }
  return db;
}

function damaged(file: string, problems: string[]): Error {
  return new Error(
    `the database ${file} is damaged (${problems.join('; ').replace(/\s+/g, ' ')}): start from a bundle (emulator start --from FILE), or move it and its -wal/-shm files away to start empty`,
  );
}

/**
 * A damaged database is refused at start, naming the file, instead of starting with a normal ready
 * line and failing later (a 500 on some page of the feed, an export). `quick_check` reads every page
 * once (not the indexes' agreement, which `integrity_check` adds at many times the cost).
 */
export function checkIntact(db: Db, file: string): void {
  const problems = (db.pragma('quick_check(5)') as { quick_check: string }[]).map((r) => r.quick_check);
  if (problems.length !== 1 || problems[0] !== 'ok') throw damaged(file, problems);
}

export function migrate(db: Db, migrations: Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
  });
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length;
  if (current > latest) {
    throw new Error(
      `the emulator's database is from a newer version (${current} > ${latest}); update merchant-kit or use another --data folder`,
    );
  }
  if (current === latest) return;
  db.transaction(() => {
    for (const m of migrations.slice(current)) db.exec(m.up);
    db.pragma(`user_version = ${latest}`);
  })();
}
