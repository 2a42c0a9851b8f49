import { Agent, request as undiciRequest } from 'undici';
import type { TestEmulator } from './emulator.js';
import { seedMenu } from './orders.js';

// Store tokens (DESIGN: Storage and the team sandbox): calls to the control API with a token, and
// a store fully furnished (catalog, orders, webhook deliveries, an independent delivery, a panel
// product, a second credential) so that every store route has something of the store to act on.

export interface Answer {
  status: number;
  body: any;
}

let lastAddress = 1;
/**
 * A client calling from an address of its own (127.0.0.2, .3, …: all of 127/8 is loopback on Linux).
 * Wrong tokens count 30 a minute per IP: each group of refused calls comes from a fresh address so
 * that one group's failures never block the next.
 */
export function freshAddress(): Agent {
  lastAddress = lastAddress >= 250 ? 2 : lastAddress + 1;
  return new Agent({ localAddress: `127.0.0.${lastAddress}` });
}

const shared = new Agent();

/** What GET /_emulator/health answers each token, called from an address of its own (a refusal counts there only). */
export async function healthFromFreshAddress(emu: TestEmulator, tokens: (string | null)[]): Promise<number[]> {
  const agent = freshAddress();
  try {
    const statuses: number[] = [];
    for (const token of tokens) statuses.push((await controlCall(emu, 'GET', '/health', token, undefined, agent)).status);
    return statuses;
  } finally {
    await agent.close();
  }
}

/** A control call (`/_emulator` + path) with `token` as the bearer (none when null). Writes always carry the JSON type. */
/**
 * Waits out the last `marginMs` of a real minute: the control API's wrong-token budget counts real
 * minutes, and a run that straddles two would see two budgets.
 */
export async function freshMinute(marginMs = 15_000): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 60_000 - marginMs) await new Promise((r) => setTimeout(r, 60_000 - into + 50));
}

/**
 * A clock for the emulator's per-IP guards (the TEST-ONLY `guardNow` option): real time, moved
 * forward by `freshMinute()` to the start of the next minute, so that a test counting to a guard's
 * limit has a whole minute of its own without waiting for one. Give the same one to every process
 * of a shared sandbox (their windows are one).
 */
export class GuardClock {
  private offset = 0;
  readonly now = (): number => Date.now() + this.offset;

  /** From here the guards' minute is a new one, with all of its 60 s ahead. */
  freshMinute(): void {
    const now = this.now();
    this.offset += Math.ceil(now / 60_000) * 60_000 - now;
  }
}

export async function controlCall(emu: TestEmulator, method: string, path: string, token: string | null, body?: unknown, agent: Agent = shared): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (method !== 'GET') headers['content-type'] = 'application/json';
  const res = await undiciRequest(`${emu.running.admin_url}${path}`, {
    method: method as 'GET', headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: agent,
  });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON (the export's gzip) */
  }
  return { status: res.statusCode, body: parsed };
}

/** A store with everything a store route can act on, made with the admin token. */
export interface FurnishedStore {
  environment: 'test' | 'live';
  storeId: string;
  integrationId: string;
  credential: string;
  token: string;
  /** The first credential's key id: revocable, the store works on with the second (`credential`). */
  firstKey: string;
  orders: string[];
  deliveryId: string;
  productId: string;
  entregaId: string;
  trackingToken: string;
}

let seq = 0;

export async function furnishedStore(emu: TestEmulator, admin: string, environment: 'test' | 'live' = 'test'): Promise<FurnishedStore> {
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await controlCall(emu, method, path, admin, body);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const made = await ok('POST', '/stores', { environment, name: `Tienda ${++seq}` });
  const credential: string = made.credential;
  const api = environment === 'live' ? emu.liveApi : emu.api;
  if (environment === 'test') await seedMenu(emu, credential);
  else {
    await api('PUT', '/catalog/categories/CAT-1', { credential, body: { name: 'Bebidas' } });
    await api('PUT', '/catalog/products/P-1', { credential, body: { name: 'Agua', category_external_id: 'CAT-1', price: '5000' } });
  }
  const integrationId: string = made.integration.id;
  // Port 9 (discard) refuses: the deliveries fail at once and stay retryable.
  await ok('PUT', `/integrations/${integrationId}/webhook`, { url: 'http://127.0.0.1:9/hook', events: ['*'] });
  const orders: string[] = [];
  for (let i = 0; i < 3; i++) orders.push((await ok('POST', '/orders', { store_id: made.store.id, scenario: 'pickup_invoice' })).id);
  const deliveries = await ok('GET', `/panel/integrations/${integrationId}/deliveries`);
  const spare = await ok('POST', `/integrations/${integrationId}/credentials`, { overlap_hours: 72 });
  const product = await ok('POST', `/stores/${made.store.id}/products`, { name: 'Empanada', price: '7000' });
  const entrega = await api('POST', '/entregas', {
    credential,
    idempotencyKey: `tokens-entrega-${seq}`,
    body: {
      request_key: `TOK-${seq}`, customer: { name: 'Luis Ortiz', phone: '0981222333' }, address: { line: 'Calle Palma 500' },
      payment_method: 'cash', customer_total: 50000, customer_fee: 8000, courier_fee: 10000,
    },
  });
  if (entrega.status !== 201) throw new Error(`POST /entregas answered ${entrega.status}: ${JSON.stringify(entrega.body)}`);
  return {
    environment,
    storeId: made.store.id,
    integrationId,
    credential: spare.credential,
    token: made.store_token,
    firstKey: made.credential.split('.')[0],
    orders,
    deliveryId: deliveries[0].id,
    productId: product.id,
    entregaId: entrega.body.data.id,
    trackingToken: entrega.body.data.tracking_url.split('/').pop(),
  };
}

/** Ids that no store has, in the shape of a furnished store (what a 404 of a missing id looks like). */
export const NOBODY: FurnishedStore = {
  environment: 'test',
  storeId: 'str_01J00000000000000000000000',
  integrationId: 'int_01J00000000000000000000000',
  credential: '',
  token: '',
  firstKey: 'svk_test_000000000000000000000000',
  orders: ['ord_01J00000000000000000000000', 'ord_01J00000000000000000000001', 'ord_01J00000000000000000000002'],
  deliveryId: 'dlv_01J00000000000000000000000',
  productId: 'prd_01J00000000000000000000000',
  entregaId: 'ent_01J00000000000000000000000',
  trackingToken: 'trk_00000000000000000000000000000000',
};
