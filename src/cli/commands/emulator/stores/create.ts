import type { Command } from 'commander';
import type { CreatedStore } from '../../../../client/emulator-control.js';
import { emit, note, printSummary } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';

function printCreated(created: CreatedStore): void {
  printSummary([
    ['Store', `${created.store.name} (${created.store.id}, ${created.store.slug})`],
    ['Environment', created.store.environment],
    ['Integration', created.integration.id],
    ['Credential', created.credential],
    ['Store token', created.store_token],
  ]);
  note('The credential and the store token are shown once: hand them to the integrator now (the credential for their ERP; the store token for the CLI, the panel and homologate --observe on this store only).');
}

/** `emulator stores create`: POST /_emulator/stores. */
export async function storesCreateAction(options: { environment: 'test' | 'live'; name?: string; slug?: string }, command: Command): Promise<void> {
  const target = await controlTarget(command);
  const body = { environment: options.environment, ...(options.name ? { name: options.name } : {}), ...(options.slug ? { slug: options.slug } : {}) };
  emit(target.json, await withControl(target, (control) => control.createStore(body)), printCreated);
}
