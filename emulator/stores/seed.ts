import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { Environment } from '../../src/contract/store.js';
import type { SeededStore } from '../store/coordination.js';
import { digestSecret, issueCredential } from './credentials.js';
import { provisionStore } from './provision.js';

export type { SeededStore };

const NAMES: Record<Environment, string> = { test: 'Tienda Demo (prueba)', live: 'Tienda Demo' };
// The ready line lists the test store first.
const SEEDED: readonly Environment[] = ['test', 'live'];

function credentialParts(full: string) {
  const [keyId, secret] = full.split('.');
  return { keyId: keyId!, secret: secret!, full, digest: digestSecret(secret!) };
}

/** Writes the seeded stores into databases that do not hold them (a new sandbox, or after reset). */
export async function applySeeds(emulator: Emulator, seeds: SeededStore[]): Promise<void> {
  for (const seed of seeds) {
    const env = emulator.env(seed.environment);
    if (await env.store.stores.byId(seed.storeId)) continue;
    await provisionStore(
      env,
      { name: NAMES[seed.environment], slug: `demo-${seed.environment}` },
      { storeId: seed.storeId, integrationId: seed.integrationId, credential: credentialParts(seed.credential) },
    );
  }
}

/** DESIGN: back to the seeded state; the ready line's credentials stay valid. */
export async function resetToSeeds(emulator: Emulator): Promise<void> {
  await emulator.storage.admin.reset();
  await emulator.resetAround();
  await applySeeds(emulator, emulator.seeds);
}

/** The environment's demo store: the one with the demo slug, else its oldest store with an integration. */
async function demoStoreOf(env: EnvContext): Promise<{ storeId: string; integrationId: string } | undefined> {
  const stores = await env.store.stores.all();
  const demo = stores.find((s) => s.slug === `demo-${env.name}`);
  for (const store of demo ? [demo, ...stores] : stores) {
    const integration = (await env.store.integrations.byStore(store.id))[0];
    if (integration) return { storeId: store.id, integrationId: integration.id };
  }
  return undefined;
}

/**
 * The seed of an environment whose saved one is missing or names a store the database does not
 * hold: its existing demo store with a fresh credential (never a second demo store), else a new one.
 */
async function adoptOrProvision(env: EnvContext): Promise<SeededStore> {
  const found = await demoStoreOf(env);
  if (!found) {
    const made = await provisionStore(env, { name: NAMES[env.name], slug: `demo-${env.name}` });
    return { environment: env.name, storeId: made.storeId, integrationId: made.integrationId, credential: made.credential.full };
  }
  const issued = issueCredential(env.name);
  await env.store.credentials.insert(issued.keyId, found.integrationId, issued.digest, env.clock.now());
  return { environment: env.name, ...found, credential: issued.full };
}

/**
 * The demo stores of the sandbox and their credentials (DESIGN: the ready line shows them, and they
 * survive restarts, so a developer's saved profile keeps working). The storage keeps them (a file
 * beside the SQLite databases, a table on a server database). A database emptied by hand gets its
 * saved demo store back; missing seeds, or seeds that name stores the database does not hold (a
 * folder restored by an older version), adopt the demo store already there.
 */
export async function loadOrCreateSeeds(emulator: Emulator): Promise<SeededStore[]> {
  const stored = await emulator.storage.coordination.seeds.load();
  // Only the start that makes the sandbox (nothing saved, no store anywhere) keeps the seed's own
  // ids; a second process or a restart would draw them again (DESIGN: ids never repeat).
  if (stored !== null || !(await sandboxIsEmpty(emulator))) emulator.saltIds();
  const saved = stored ?? [];
  let changed = false;
  const seeds: SeededStore[] = [];
  for (const environment of SEEDED) {
    const env = emulator.env(environment);
    const kept = saved.find((s) => s.environment === environment);
    if (kept && ((await env.store.stores.byId(kept.storeId)) || (await env.store.stores.all()).length === 0)) {
      await applySeeds(emulator, [kept]);
      seeds.push(kept);
      continue;
    }
    changed = true;
    seeds.push(await adoptOrProvision(env));
  }
  if (changed) await emulator.storage.coordination.seeds.save(seeds);
  return seeds;
}

async function sandboxIsEmpty(emulator: Emulator): Promise<boolean> {
  for (const environment of SEEDED) if ((await emulator.env(environment).store.stores.all()).length > 0) return false;
  return true;
}

/**
 * The seeds of a restored state: per environment its demo store (the bundle's own when it came from
 * an emulator) with the credential the restore handed out, so that a restart of the folder shows a
 * working credential and adds no demo store. An environment the bundle left without a store gets one.
 */
export async function seedsAfterRestore(
  emulator: Emulator,
  handedOut: { environment: Environment; integration_id: string; credential: string }[],
): Promise<SeededStore[]> {
  const seeds: SeededStore[] = [];
  for (const environment of SEEDED) {
    const env = emulator.env(environment);
    const found = await demoStoreOf(env);
    const credential = found && handedOut.find((r) => r.environment === environment && r.integration_id === found.integrationId)?.credential;
    seeds.push(found && credential ? { environment, ...found, credential } : await adoptOrProvision(env));
  }
  return seeds;
}
