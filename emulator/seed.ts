import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { secureDataDir } from './db/open.js';
import { join } from 'node:path';
import type { EnvContext } from './context.js';
import { digestSecret } from './auth/credentials.js';
import { provisionStore } from './provision.js';
import { ENVIRONMENTS, type Environment } from '../src/contract/store.js';

/** One demo store per environment, with the credential the ready line prints. */
export interface SeededStore {
  environment: Environment;
  storeId: string;
  integrationId: string;
  credential: string;
}

/** The file beside the databases that keeps the demo credentials (its absence means a new data folder). */
export const SEED_FILE = 'seed-credentials.json';
const NAMES: Record<Environment, string> = { test: 'Tienda Demo (prueba)', live: 'Tienda Demo' };

function credentialParts(full: string) {
  const [keyId, secret] = full.split('.');
  return { keyId, secret, full, digest: digestSecret(secret) };
}

/** Writes the seeded stores into databases that do not hold them (a new folder, or after reset). */
export function applySeeds(envs: Record<Environment, EnvContext>, seeds: SeededStore[]): void {
  for (const seed of seeds) {
    const env = envs[seed.environment];
    if (env.stores.byId(seed.storeId)) continue;
    provisionStore(
      env,
      { name: NAMES[seed.environment], slug: `demo-${seed.environment}` },
      { storeId: seed.storeId, integrationId: seed.integrationId, credential: credentialParts(seed.credential) },
    );
  }
}

/**
 * The demo credentials must survive restarts with `--data` (a developer's saved profile keeps
 * working), yet the API database stores only digests. They are kept beside the databases in a
 * file readable by its owner only; with `--memory` they live in memory.
 */
export function loadOrCreateSeeds(dataDir: string | null, envs: Record<Environment, EnvContext>): SeededStore[] {
  const file = dataDir ? join(dataDir, SEED_FILE) : null;
  let seeds: SeededStore[];
  if (file && existsSync(file)) {
    chmodSync(file, 0o600); // written by an older version with the umask's mode
    seeds = JSON.parse(readFileSync(file, 'utf8')) as SeededStore[];
    applySeeds(envs, seeds);
    return seeds;
  }
  seeds = (['test', 'live'] as const).filter((e) => ENVIRONMENTS.includes(e)).map((environment) => {
    const env = envs[environment];
    const made = provisionStore(env, { name: NAMES[environment], slug: `demo-${environment}` });
    return { environment, storeId: made.storeId, integrationId: made.integrationId, credential: made.credential.full };
  });
  if (file && dataDir) {
    secureDataDir(dataDir);
    writeFileSync(file, JSON.stringify(seeds, null, 2), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return seeds;
}
