import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { secureDataDir } from '../store/sqlite/open.js';
import type { EnvContext } from '../context.js';
import { digestSecret, issueCredential, parseAuthorization } from './credentials.js';
import { provisionStore } from './provision.js';
import { isId } from '../../src/contract/ids.js';
import type { Environment } from '../../src/contract/store.js';
import { writeFileAtomic } from '../../src/files/atomic.js';

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
// The ready line lists the test store first.
const SEEDED: readonly Environment[] = ['test', 'live'];

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

export function saveSeeds(dataDir: string | null, seeds: SeededStore[]): void {
  if (!dataDir) return;
  secureDataDir(dataDir);
  writeFileAtomic(join(dataDir, SEED_FILE), JSON.stringify(seeds, null, 2));
}

/** The environment's demo store: the one with the demo slug, else its oldest store with an integration. */
function demoStoreOf(env: EnvContext): { storeId: string; integrationId: string } | undefined {
  const stores = env.stores.all();
  const demo = stores.find((s) => s.slug === `demo-${env.name}`);
  for (const store of demo ? [demo, ...stores] : stores) {
    const integration = env.integrations.byStore(store.id)[0];
    if (integration) return { storeId: store.id, integrationId: integration.id };
  }
  return undefined;
}

/**
 * The seed of an environment whose saved one is missing or names a store the database does not
 * hold: its existing demo store with a fresh credential (never a second demo store), else a new one.
 */
function adoptOrProvision(env: EnvContext): SeededStore {
  const found = demoStoreOf(env);
  if (!found) {
    const made = provisionStore(env, { name: NAMES[env.name], slug: `demo-${env.name}` });
    return { environment: env.name, storeId: made.storeId, integrationId: made.integrationId, credential: made.credential.full };
  }
  const issued = issueCredential(env.name);
  env.credentials.insert(issued.keyId, found.integrationId, issued.digest, env.clock.now());
  return { environment: env.name, ...found, credential: issued.full };
}

/**
 * The demo credentials must survive restarts with `--data` (a developer's saved profile keeps
 * working), yet the API database stores only digests. They are kept beside the databases in a
 * file readable by its owner only; with `--memory` they live in memory. A database emptied by hand
 * gets its saved demo store back; a deleted seed file, or one that names stores the database does
 * not hold (a folder restored by an older version), adopts the demo store already there.
 */
export function loadOrCreateSeeds(dataDir: string | null, envs: Record<Environment, EnvContext>): SeededStore[] {
  const file = dataDir ? join(dataDir, SEED_FILE) : null;
  const saved = file && existsSync(file) ? readSeedFile(file) : [];
  let changed = false;
  const seeds = SEEDED.map((environment) => {
    const env = envs[environment];
    const kept = saved.find((s) => s.environment === environment);
    if (kept && (env.stores.byId(kept.storeId) || env.stores.all().length === 0)) {
      applySeeds(envs, [kept]);
      return kept;
    }
    changed = true;
    return adoptOrProvision(env);
  });
  if (changed) saveSeeds(dataDir, seeds);
  return seeds;
}

/**
 * The seeds of a restored state: per environment its demo store (the bundle's own when it came from
 * an emulator) with the credential the restore handed out, so that a restart of the folder shows a
 * working credential and adds no demo store. An environment the bundle left without a store gets one.
 */
export function seedsAfterRestore(
  envs: Record<Environment, EnvContext>,
  handedOut: { environment: Environment; integration_id: string; credential: string }[],
): SeededStore[] {
  return SEEDED.map((environment) => {
    const env = envs[environment];
    const found = demoStoreOf(env);
    const credential = found && handedOut.find((r) => r.environment === environment && r.integration_id === found.integrationId)?.credential;
    return found && credential ? { environment, ...found, credential } : adoptOrProvision(env);
  });
}
