import type { EnvContext } from '../context.js';
import type { IntegrationRecord, IntegrationStatus } from './repository.js';
import type { IntegrationSettingsPatch, Scope } from '../../src/contract/store.js';

export interface IntegrationChange {
  scopes?: Scope[];
  /** Merged into the current settings. */
  settings?: IntegrationSettingsPatch;
  status?: Extract<IntegrationStatus, 'active' | 'suspended'>;
}

/** What an integration reads about itself in `integration.updated`. */
export function integrationEventView(i: IntegrationRecord) {
  return { id: i.id, status: i.status, scopes: i.scopes, settings: i.settings };
}

/**
 * A panel change of permissions, settings or status (spec: Integration settings — a change emits
 * `integration.updated`). The event goes to that integration only, in the same transaction, and
 * only when something actually changed.
 */
export async function changeIntegration(env: EnvContext, integrationId: string, change: IntegrationChange): Promise<IntegrationRecord> {
  return env.store.tx(async (tx) => {
    const before = (await tx.integrations.byId(integrationId))!;
    const after: IntegrationRecord = {
      ...before,
      scopes: change.scopes ?? before.scopes,
      settings: { ...before.settings, ...change.settings },
      status: change.status ?? before.status,
    };
    const changed = (['scopes', 'settings', 'status'] as const).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    if (changed.length === 0) return before;
    await tx.integrations.update(after, env.clock.now());
    const stored = (await tx.integrations.byId(integrationId))!;
    await tx.emit('integration.updated', stored.storeId, { integration: integrationEventView(stored), changed }, stored.id);
    return stored;
  });
}
