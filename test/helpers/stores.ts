import { EVENT_TYPES } from '../../src/contract/enums.js';
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

/** Events written for an integration (every type, any age), read straight from its environment's storage. */
export async function eventsOf(emu: TestEmulator, environment: 'live' | 'test', integrationId: string) {
  const rows = await emu.running.emulator.env(environment).store.events.feedPage({ integrationId, after: 0, cutoff: 0, types: EVENT_TYPES, limit: 1000 });
  return rows.map((row) => ({ seq: row.seq, id: row.id, type: row.type, data: JSON.parse(row.data.toString('utf8')) as Record<string, unknown> }));
}
