import { join } from 'node:path';
import { openDatabase, type Db } from './open.js';
import type { Migration } from './migrations/index.js';

// The sandbox's own database beside the environments' (`sandbox.sqlite` in the data folder, or in
// memory): what belongs to the sandbox rather than to an environment — the certificates' ledger. A
// bundle never holds it and a restore leaves it in place (it is not one of the files a restore swaps),
// so the keys and what they signed outlive a reset and a restore. Its migrations are its own.

export const SANDBOX_FILE = 'sandbox.sqlite';

export const SANDBOX_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'certificates',
    up: `
      CREATE TABLE signing_keys (
        kid TEXT PRIMARY KEY,
        private_key BLOB NOT NULL,
        x TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        retired_at INTEGER
      ) STRICT;
      CREATE UNIQUE INDEX signing_keys_current ON signing_keys (retired_at IS NULL) WHERE retired_at IS NULL;

      CREATE TABLE certificates (
        id TEXT PRIMARY KEY,
        integration_id TEXT NOT NULL,
        store_id TEXT NOT NULL,
        system TEXT NOT NULL,
        environment TEXT NOT NULL,
        session_started_at INTEGER NOT NULL,
        kid TEXT NOT NULL,
        jws TEXT NOT NULL,
        report TEXT NOT NULL,
        report_sha256 TEXT NOT NULL,
        issued_at INTEGER NOT NULL,
        revoked_at INTEGER,
        UNIQUE (integration_id, session_started_at)
      ) STRICT;
      CREATE INDEX certificates_issued ON certificates(issued_at);
    `,
  },
];

/** Opens (or creates) the sandbox's database of a data folder, or one in memory. */
export function openSandboxDatabase(dataDir: string | null): Db {
  return openDatabase(dataDir ? join(dataDir, SANDBOX_FILE) : null, SANDBOX_MIGRATIONS);
}
