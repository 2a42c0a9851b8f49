import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ENVIRONMENTS } from '../../../src/contract/store.js';
import type { FolderFiles } from '../../bundle/restore-folder.js';
import { CLOCK_FILE } from './clock-file.js';
import { SEED_FILE } from './seed-file.js';
import type { SqliteStorage } from './index.js';

const DATABASES = ENVIRONMENTS.map((name) => `${name}.sqlite`);

/** The data folder's files a restore replaces (bundle/restore-folder.ts): each environment's database, the clock, the demo stores. */
export const SQLITE_FOLDER: FolderFiles = {
  files: [...DATABASES, CLOCK_FILE, SEED_FILE],
  clearBeside(dir: string, name: string): void {
    // The old database's log would be replayed into the new file: it goes first.
    if (DATABASES.includes(name)) for (const suffix of ['-wal', '-shm', '-journal']) rmSync(join(dir, name + suffix), { force: true });
  },
};

/** A database file without a -wal beside it: the whole state is in the one file that is moved. */
export function sealDatabases(storage: SqliteStorage): void {
  for (const env of Object.values(storage.envs)) env.db.pragma('journal_mode = DELETE');
}
