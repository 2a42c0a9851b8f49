import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isId } from '../../../src/contract/ids.js';
import type { Environment } from '../../../src/contract/store.js';
import { writeFileAtomic } from '../../../src/files/atomic.js';
import { parseAuthorization } from '../../stores/credentials.js';
import type { SeededStore, SeedStore } from '../../store/coordination.js';
import { secureDataDir } from './data-dir.js';

/** The file beside the databases that keeps the demo credentials (its absence means a new data folder). */
export const SEED_FILE = 'seed-credentials.json';

const SEEDED: readonly Environment[] = ['test', 'live'];

function damaged(file: string, why: string): Error {
  return new Error(`the seed file ${file} is damaged (${why}): remove it and start again; the demo stores are kept and get new credentials`);
}

function isSeed(value: unknown): value is SeededStore {
  const s = value as Partial<SeededStore> | null;
  if (!s || typeof s !== 'object' || !SEEDED.includes(s.environment as Environment)) return false;
  const auth = typeof s.credential === 'string' ? parseAuthorization(`Bearer ${s.credential}`) : undefined;
  return isId('store', s.storeId) && isId('integration', s.integrationId) && auth?.env === s.environment;
}

/** The saved seeds; a file that cannot be used is one error naming it (never "seeds is not iterable"). */
function readSeedFile(file: string): SeededStore[] {
  chmodSync(file, 0o600); // written by an older version with the umask's mode
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw damaged(file, 'not valid JSON');
  }
  if (!Array.isArray(parsed)) throw damaged(file, 'not a list of stores');
  parsed.forEach((seed, i) => {
    if (!isSeed(seed)) throw damaged(file, `entry ${i + 1} is not a store with its environment, ids and credential`);
    if (parsed.findIndex((s: SeededStore) => s.environment === seed.environment) !== i) throw damaged(file, `two entries for ${seed.environment}`);
  });
  return parsed as SeededStore[];
}

/**
 * The demo credentials must survive restarts with `--data` (a developer's saved profile keeps
 * working), yet the API database stores only digests. They are kept beside the databases in a file
 * readable by its owner only; with `--memory` they live in memory. One process owns the folder.
 */
export function fileSeedStore(dataDir: string | null): SeedStore {
  let inMemory: SeededStore[] | null = null;
  return {
    async load() {
      if (!dataDir) return inMemory;
      const file = join(dataDir, SEED_FILE);
      return existsSync(file) ? readSeedFile(file) : null;
    },
    async save(seeds) {
      inMemory = seeds;
      if (!dataDir) return;
      secureDataDir(dataDir);
      writeFileAtomic(join(dataDir, SEED_FILE), JSON.stringify(seeds, null, 2));
    },
    once: (make) => make(),
  };
}
