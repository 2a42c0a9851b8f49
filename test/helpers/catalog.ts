import type { TestEmulator } from './emulator.js';
import { provisionStore } from '../../emulator/stores/provision.js';
import type { IntegrationSettings, Scope } from '../../src/contract/store.js';

/** A second store of the sandbox with its own credential (the control API's when it exists). */
export async function makeStore(
  emu: TestEmulator, settings: Partial<IntegrationSettings> = {}, scopes?: Scope[],
): Promise<{ storeId: string; integrationId: string; credential: string }> {
  const res = await emu.control('POST', '/stores', { environment: 'test', settings, ...(scopes ? { scopes } : {}) });
  if (res.status === 201) {
    const d = res.body.data;
    return { storeId: d.store.id, integrationId: d.integration.id, credential: d.credential };
  }
  const made = await provisionStore(emu.running.emulator.envs.test, { settings, scopes });
  return { storeId: made.storeId, integrationId: made.integrationId, credential: made.credential.full };
}

export const category = (name = 'Bebidas', extra: Record<string, unknown> = {}) => ({ name, ...extra });

export const product = (extra: Record<string, unknown> = {}) => ({ name: 'Coca-Cola 500 ml', category_external_id: 'CAT-1', price: '8000', ...extra });

/** Creates category `CAT-1` on the sandbox store (idempotent). */
export async function withCategory(emu: TestEmulator, code = 'CAT-1', credential?: string): Promise<string> {
  const res = await emu.api('PUT', `/catalog/categories/${code}`, { body: category(), credential });
  return res.body.data.id;
}

/** Moves the emulator's clock where the sandbox keeps it (on PostgreSQL every request reads it there). */
export function advance(emu: TestEmulator, seconds: number): Promise<void> {
  return emu.running.emulator.advanceClock(seconds * 1000);
}
