import type { TestEmulator } from './emulator.js';

export interface NewStore {
  store: { id: string; slug: string; name: string; environment: 'live' | 'test'; accepting_orders: boolean; [k: string]: unknown };
  integration: { id: string; status: string; scopes: string[]; settings: Record<string, unknown>; [k: string]: unknown };
  credential: string;
}

/** A new store and integration through the control API (`POST /_emulator/stores`). */
export async function newStore(emu: TestEmulator, body: Record<string, unknown> = {}): Promise<NewStore> {
  const res = await emu.control('POST', '/stores', { environment: 'test', ...body });
  if (res.status !== 201) throw new Error(`POST /_emulator/stores answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data as NewStore;
}

/** Calls the API of the store's environment with its credential. */
export function asStore(emu: TestEmulator, made: NewStore) {
  const call = made.store.environment === 'live' ? emu.liveApi : emu.api;
  return (method: string, path: string, options: Parameters<TestEmulator['api']>[2] = {}) =>
    call(method, path, { credential: made.credential, ...options });
}

/** Events written for an integration, read straight from its environment's outbox. */
export function eventsOf(emu: TestEmulator, environment: 'live' | 'test', integrationId: string) {
  return emu.running.emulator.env(environment).events.after(integrationId, 0, 1000);
}
