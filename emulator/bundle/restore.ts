import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { Environment } from '../../src/contract/store.js';
import { issueCredential } from '../stores/credentials.js';
import { newSigningSecret } from '../webhooks/config.js';
import { webhookService } from '../webhooks/background.js';
import { seedsAfterRestore } from '../stores/seed.js';
import type { Bundle } from './format.js';

/** What a restore hands out once: a fresh credential per restored integration, and new signing secrets. */
export interface RestoredIntegration {
  environment: Environment;
  store_id: string;
  integration_id: string;
  credential: string;
  /** The webhook's new signing secret, when the integration has a webhook. */
  webhook_signing_secret?: string;
}

/** New credentials (the bundle's key ids stay, with their digests) and new webhook signing secrets. */
async function handOut(env: EnvContext, now: number): Promise<RestoredIntegration[]> {
  return env.store.tx(async (tx) => {
    // What was being sent when the state was saved is sent again (at least once).
    await tx.webhooks.recoverInterrupted(now);
    const restored: RestoredIntegration[] = [];
    for (const store of await tx.stores.all()) {
      for (const integration of await tx.integrations.byStore(store.id)) {
        const issued = issueCredential(env.name);
        await tx.credentials.insert(issued.keyId, integration.id, issued.digest, now);
        const one: RestoredIntegration = { environment: env.name, store_id: store.id, integration_id: integration.id, credential: issued.full };
        const webhook = await tx.webhooks.get(integration.id);
        if (webhook) {
          const secret = newSigningSecret();
          await tx.webhooks.save({ ...webhook, secret, previousSecret: null, previousExpiresAt: null });
          one.webhook_signing_secret = secret;
        }
        restored.push(one);
      }
    }
    return restored;
  });
}

/**
 * The state of a checked bundle written into an emulator that serves nothing yet (a restore's
 * staging folder, or an emulator before it listens): both environments' tables (checked and loaded
 * by the storage: a refused bundle changes nothing), the clock (moved forward to the bundle's time
 * when that is later; it never goes back) and the demo stores a reset or a restart brings back (the
 * bundle's own, with the credentials handed out here).
 */
export async function restoreState(emulator: Emulator, bundle: Bundle): Promise<RestoredIntegration[]> {
  const dumps = bundle.payload.environments as Record<Environment, (typeof bundle.payload.environments)[string]>;
  await emulator.storage.admin.restore(dumps);
  await emulator.resetAround();
  const behind = bundle.payload.clock.now_ms - emulator.clock.now();
  const now = Math.max(emulator.clock.now(), bundle.payload.clock.now_ms);
  const restored: RestoredIntegration[] = [];
  for (const env of Object.values(emulator.envs)) restored.push(...(await handOut(env, now)));
  if (behind > 0) await emulator.advanceClock(behind);
  const seeds = await seedsAfterRestore(emulator, restored);
  await emulator.adoptSeeds(seeds);
  // A demo store made for an environment the bundle left empty is handed out like the restored ones.
  for (const seed of seeds) {
    if (!restored.some((r) => r.integration_id === seed.integrationId)) {
      restored.push({ environment: seed.environment, store_id: seed.storeId, integration_id: seed.integrationId, credential: seed.credential });
    }
  }
  return restored;
}

/**
 * Replaces a running emulator's whole state with a checked bundle (see restoreState); due webhook
 * deliveries resume. Faults, chaos and rate windows start empty.
 */
export async function restoreBundle(emulator: Emulator, bundle: Bundle): Promise<RestoredIntegration[]> {
  const restored = await restoreState(emulator, bundle);
  webhookService(emulator).kick();
  return restored;
}
