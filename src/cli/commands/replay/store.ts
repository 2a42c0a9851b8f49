import type { Exchange } from '../proxy/record.js';

// A recording is of one integration, and so of one store; an emulator started from a team sandbox's
// bundle has many (issue 27: support replayed an integrator's session with the demo store's
// credential, and every answer that names the store differed).

const STORE_ID = /^str_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * The store a session was recorded in, from its answers: GET /me's `store.id`, GET or PATCH /store's
 * `id`, else the first `store_id` of an answer's data (orders, events). Null when no answer names one.
 */
export function recordedStore(exchanges: readonly Exchange[]): string | null {
  for (const exchange of exchanges) {
    const data = (exchange.response.body as { data?: unknown } | null)?.data;
    if (!data || typeof data !== 'object') continue;
    const path = exchange.request.path.split('?')[0]!;
    const named = path.endsWith('/me')
      ? (data as { store?: { id?: unknown } }).store?.id
      : path.endsWith('/store')
        ? (data as { id?: unknown }).id
        : (Array.isArray(data) ? data : [data]).map((item) => (item as { store_id?: unknown } | null)?.store_id).find((id) => typeof id === 'string');
    if (typeof named === 'string' && STORE_ID.test(named)) return named;
  }
  return null;
}

/** What replay needs of the target's state: its stores, and the key ids of each one's credentials. */
export interface TargetStores {
  environments: { name: 'live' | 'test'; stores: { id: string; integrations: { credentials: { key_id: string }[] }[] }[] }[];
}

/** The environment of the target that holds the recording's store; null when it holds none of that id. */
export function environmentOfStore(state: TargetStores, store: string): 'live' | 'test' | null {
  return state.environments.find((e) => e.stores.some((s) => s.id === store))?.name ?? null;
}

/**
 * The warning for a credential of another store than the recording's, when the target holds the
 * recording's store (an emulator started from the bundle): the answers that name the store, its
 * catalog and its orders would differ for a reason that is not the integrator's. Null otherwise (a
 * rebuilt emulator whose ids differ is compared by replay's id mapping).
 */
export function otherStoreWarning(file: string, recorded: string | null, credential: string, state: TargetStores): string | null {
  if (!recorded) return null;
  const stores = state.environments.flatMap((e) => e.stores);
  if (!stores.some((s) => s.id === recorded)) return null;
  const keyId = credential.split('.')[0];
  const own = stores.find((s) => s.integrations.some((i) => i.credentials.some((c) => c.key_id === keyId)));
  if (!own || own.id === recorded) return null;
  return `warning: ${file} was recorded in store ${recorded}, but the credential is of store ${own.id}: every answer about the store, its catalog and its orders will differ for that reason alone. Replay with the credential of ${recorded} (the ready line of the emulator started --from the bundle lists one per integration).`;
}
