import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { controlCall, freshAddress, furnishedStore, healthFromFreshAddress, NOBODY, type Answer, type FurnishedStore } from '../../helpers/tokens.js';
import { decodeBundle } from '../../../emulator/bundle/envelope.js';
import { restoreBundle } from '../../../emulator/bundle/restore.js';

// DESIGN, Storage and the team sandbox: with --admin-token the control API needs a token whatever
// the bind address; the admin token opens everything, a store token only its own store's routes
// (another store's answer 404 not_found, as if it did not exist), never the sandbox's (403
// insufficient_scope). Every route, with no token, a wrong one, the admin's, the store's own and
// another store's (of the same environment and of the other one).

const ADMIN = 'admin-token-de-prueba-largo';
let emu: TestEmulator;
let a: FurnishedStore;
let b: FurnishedStore;
let live: FurnishedStore;

beforeAll(async () => {
  emu = await startTestEmulator({ adminToken: ADMIN, clock: 'manual' });
  a = await furnishedStore(emu, ADMIN);
  b = await furnishedStore(emu, ADMIN);
  live = await furnishedStore(emu, ADMIN, 'live');
}, 300_000);
afterAll(() => emu?.close());

interface StoreRoute {
  method: string;
  path: (s: FurnishedStore) => string;
  body?: (s: FurnishedStore) => unknown;
  /** What the store's own token gets (on its store), and the admin token (on another). */
  own: number;
  admin?: number;
}

// Routes about one store: its PATCH, integration, credentials, webhook, orders, products,
// deliveries, independent deliveries, homologation and the panel's reads.
const STORE_ROUTES: Record<string, StoreRoute> = {
  'PATCH /stores/{id}': { method: 'PATCH', path: (s) => `/stores/${s.storeId}`, body: () => ({ accepting_orders: true }), own: 200 },
  'POST /stores/{id}/products': { method: 'POST', path: (s) => `/stores/${s.storeId}/products`, body: () => ({ name: 'Chipa', price: '3000' }), own: 201 },
  'PATCH /products/{id}': { method: 'PATCH', path: (s) => `/products/${s.productId}`, body: () => ({ price: '7500' }), own: 200 },
  'PATCH /integrations/{id}': { method: 'PATCH', path: (s) => `/integrations/${s.integrationId}`, body: () => ({ settings: { ack_alert_minutes: 9 } }), own: 200 },
  'POST /integrations/{id}/credentials': { method: 'POST', path: (s) => `/integrations/${s.integrationId}/credentials`, body: () => ({ overlap_hours: 72 }), own: 201 },
  'DELETE /integrations/{id}/credentials/{key}': { method: 'DELETE', path: (s) => `/integrations/${s.integrationId}/credentials/${s.firstKey}`, own: 200 },
  'PUT /integrations/{id}/webhook': { method: 'PUT', path: (s) => `/integrations/${s.integrationId}/webhook`, body: () => ({ url: 'http://127.0.0.1:9/other' }), own: 200 },
  'POST /orders': { method: 'POST', path: () => '/orders', body: (s) => ({ store_id: s.storeId, scenario: 'delivery' }), own: 201 },
  'GET /orders/{id}': { method: 'GET', path: (s) => `/orders/${s.orders[0]}`, own: 200 },
  'POST /orders/{id}/status': { method: 'POST', path: (s) => `/orders/${s.orders[1]}/status`, body: () => ({ status: 'accepted', by: 'store_user' }), own: 200 },
  'PATCH /orders/{id}': { method: 'PATCH', path: (s) => `/orders/${s.orders[2]}`, body: () => ({ payment_status: 'paid' }), own: 200 },
  'POST /deliveries/{id}/retry': { method: 'POST', path: (s) => `/deliveries/${s.deliveryId}/retry`, own: 200 },
  'GET /entregas/{id}': { method: 'GET', path: (s) => `/entregas/${s.entregaId}`, own: 200 },
  // Not picked up yet: the route's own refusal (409), so the token got through.
  'POST /entregas/{id}/deliver': { method: 'POST', path: (s) => `/entregas/${s.entregaId}/deliver`, body: () => ({ delivery_code: '0000' }), own: 409 },
  'GET /tracking/{token}': { method: 'GET', path: (s) => `/tracking/${s.trackingToken}`, own: 200 },
  'POST /homologation/{id}/start': { method: 'POST', path: (s) => `/homologation/${s.integrationId}/start`, body: () => ({ timeout_seconds: 60 }), own: 201 },
  'GET /homologation/{id}': { method: 'GET', path: (s) => `/homologation/${s.integrationId}`, own: 200 },
  'GET /panel/stores/{id}/orders': { method: 'GET', path: (s) => `/panel/stores/${s.storeId}/orders`, own: 200 },
  'GET /panel/integrations/{id}/deliveries': { method: 'GET', path: (s) => `/panel/integrations/${s.integrationId}/deliveries`, own: 200 },
};

interface SandboxRoute {
  method: string;
  path: string;
  body?: unknown;
  /** What the admin gets; omitted where the admin's call would undo the fixture (tested on its own below). */
  admin?: number;
}

// The sandbox's own routes: what changes or shows every store.
const SANDBOX_ROUTES: Record<string, SandboxRoute> = {
  'POST /reset': { method: 'POST', path: '/reset' },
  'POST /stores': { method: 'POST', path: '/stores', body: { environment: 'test' }, admin: 201 },
  'POST /stores/{id}/token': { method: 'POST', path: '/stores/{own}/token' },
  'DELETE /stores/{id}/token': { method: 'DELETE', path: '/stores/{own}/token' },
  'POST /clock/advance': { method: 'POST', path: '/clock/advance', body: { seconds: 1 }, admin: 200 },
  'GET /faults': { method: 'GET', path: '/faults', admin: 200 },
  'POST /faults': { method: 'POST', path: '/faults', body: { path: '/nowhere/*', status: 500 }, admin: 201 },
  'DELETE /faults': { method: 'DELETE', path: '/faults', admin: 200 },
  'GET /webhooks/chaos': { method: 'GET', path: '/webhooks/chaos', admin: 200 },
  'POST /webhooks/chaos': { method: 'POST', path: '/webhooks/chaos', body: { duplicate_rate: 0 }, admin: 200 },
  'DELETE /webhooks/chaos': { method: 'DELETE', path: '/webhooks/chaos', admin: 200 },
  'POST /webhooks/drain': { method: 'POST', path: '/webhooks/drain', admin: 200 },
  'POST /images/drain': { method: 'POST', path: '/images/drain', admin: 200 },
  'POST /homologation/recorder': { method: 'POST', path: '/homologation/recorder', body: { enabled: true }, admin: 200 },
  'GET /export': { method: 'GET', path: '/export', admin: 200 },
};

const GARBAGE = ['mks_' + 'x'.repeat(40), 'mks_short', ADMIN.slice(0, -1), `${ADMIN}x`, 'svk_test_a.svs_test_b', ''];

/** No token and wrong ones: 401 unauthenticated, from an address of their own. */
async function expectRefused(method: string, path: string, body?: unknown): Promise<void> {
  const agent = freshAddress();
  try {
    for (const token of [null, ...GARBAGE]) {
      const res = await controlCall(emu, method, path, token, body, agent);
      expect(res.status, `${method} ${path} with ${token === null ? 'no token' : 'a wrong token'}`).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
      expect(JSON.stringify(res.body)).not.toContain(ADMIN);
    }
  } finally {
    await agent.close();
  }
}

async function exportBundle(): Promise<Buffer> {
  const res = await fetch(`${emu.running.admin_url}/export`, { headers: { authorization: `Bearer ${ADMIN}` } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** The 404 of a store route, without its request id: what it says must not tell a foreign id from a missing one. */
const notFound = (res: Answer) => ({ status: res.status, code: res.body?.error?.code, message: res.body?.error?.message });

describe('store routes behind --admin-token', () => {
  it.each(Object.keys(STORE_ROUTES))('%s: 401 without a valid token, 404 for another store\'s token, opens for its own and the admin', async (name) => {
    const route = STORE_ROUTES[name]!;
    const body = (s: FurnishedStore) => route.body?.(s);
    await expectRefused(route.method, route.path(a), body(a));

    // Another store of the same environment, and of the other one: 404 as for an id nobody has.
    const missing = notFound(await controlCall(emu, route.method, route.path(NOBODY), a.token, body(NOBODY)));
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    for (const other of [b, live]) {
      const res = await controlCall(emu, route.method, route.path(a), other.token, body(a));
      expect(notFound(res), `${name} with another store's token`).toEqual(missing);
    }

    const own = await controlCall(emu, route.method, route.path(a), a.token, body(a));
    expect(own.status, JSON.stringify(own.body)).toBe(route.own);
    const admin = await controlCall(emu, route.method, route.path(b), ADMIN, body(b));
    expect(admin.status, JSON.stringify(admin.body)).toBe(route.admin ?? route.own);
  });

  it('changes nothing for another store\'s token: a refused PATCH leaves the store as it was', async () => {
    const before = (await controlCall(emu, 'GET', '/state', ADMIN)).body.data;
    const storeOf = (state: any) => state.environments.flatMap((e: any) => e.stores).find((s: any) => s.id === a.storeId);
    expect((await controlCall(emu, 'PATCH', `/stores/${a.storeId}`, b.token, { suspended: true })).status).toBe(404);
    expect((await controlCall(emu, 'PATCH', `/integrations/${a.integrationId}`, b.token, { status: 'suspended' })).status).toBe(404);
    const after = (await controlCall(emu, 'GET', '/state', ADMIN)).body.data;
    expect(storeOf(after).suspended).toBe(false);
    expect(storeOf(after).integrations[0].status).toBe(storeOf(before).integrations[0].status);
  });

  it('simulates orders on the token\'s store only, and lets the route check a body that names none', async () => {
    const made = await controlCall(emu, 'POST', '/orders', a.token, { store_id: a.storeId, scenario: 'pickup_invoice' });
    expect(made.status).toBe(201);
    expect((await controlCall(emu, 'GET', `/orders/${made.body.data.id}`, ADMIN)).status).toBe(200);
    expect((await controlCall(emu, 'GET', `/orders/${made.body.data.id}`, b.token)).status).toBe(404);
    const unnamed = await controlCall(emu, 'POST', '/orders', a.token, { scenario: 'pickup_invoice' });
    expect(unnamed.status).toBe(422);
    expect(unnamed.body.error.details.map((d: any) => d.field)).toContain('store_id');
  });
});

describe('sandbox routes behind --admin-token', () => {
  it.each(Object.keys(SANDBOX_ROUTES))('%s: 401 without a valid token, 403 insufficient_scope for any store token', async (name) => {
    const route = SANDBOX_ROUTES[name]!;
    const path = route.path.replace('{own}', a.storeId);
    await expectRefused(route.method, path, route.body);
    for (const s of [a, b, live]) {
      const res = await controlCall(emu, route.method, path, s.token, route.body);
      expect(res.status, `${name} with a store token`).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      expect(res.body.error.message).toMatch(/token de administración/);
    }
    if (route.admin !== undefined) expect((await controlCall(emu, route.method, path, ADMIN, route.body)).status).toBe(route.admin);
  });

  it('GET /health and GET /clock: 401 without a valid token, open to the admin and every store token', async () => {
    for (const path of ['/health', '/clock']) {
      await expectRefused('GET', path);
      for (const token of [ADMIN, a.token, live.token]) expect((await controlCall(emu, 'GET', path, token)).status).toBe(200);
    }
  });

  it('serves the panel page and its assets without a token (they hold no data), its reads with one', async () => {
    for (const path of ['/panel', '/panel/app.js', '/panel/app.css', '/panel/favicon.svg']) {
      expect((await controlCall(emu, 'GET', path, null)).status).toBe(200);
    }
    await expectRefused('GET', '/state');
    await expectRefused('GET', '/logs');
  });
});

describe('what a store token sees', () => {
  it('GET /state: its own environment and store only, with access saying so; the admin sees every store', async () => {
    const own = (await controlCall(emu, 'GET', '/state', a.token)).body.data;
    expect(own.access).toEqual({ role: 'store', store_id: a.storeId });
    expect(own.environments.map((e: any) => e.name)).toEqual(['test']);
    expect(own.environments[0].stores.map((s: any) => s.id)).toEqual([a.storeId]);
    expect(own.environments[0].stores[0].integrations.map((i: any) => i.id)).toEqual([a.integrationId]);
    expect(own.clock).toMatchObject({ mode: 'manual' });

    const theirs = (await controlCall(emu, 'GET', '/state', live.token)).body.data;
    expect(theirs.environments.map((e: any) => e.name)).toEqual(['live']);
    expect(theirs.environments[0].stores.map((s: any) => s.id)).toEqual([live.storeId]);

    const all = (await controlCall(emu, 'GET', '/state', ADMIN)).body.data;
    expect(all.access).toEqual({ role: 'admin', store_id: null });
    const ids = all.environments.flatMap((e: any) => e.stores.map((s: any) => s.id));
    expect(ids).toEqual(expect.arrayContaining([a.storeId, b.storeId, live.storeId, emu.test.store_id, emu.live.store_id]));
  });

  it('GET /logs: its own store\'s API requests only', async () => {
    await emu.api('GET', '/me', { credential: a.credential });
    await emu.api('GET', '/me', { credential: b.credential });
    const own = (await controlCall(emu, 'GET', '/logs?tail=500', a.token)).body.data.entries;
    expect(own.length).toBeGreaterThan(0);
    expect(new Set(own.map((e: any) => e.store_id))).toEqual(new Set([a.storeId]));
    const all = (await controlCall(emu, 'GET', '/logs?tail=500', ADMIN)).body.data.entries;
    expect(all.some((e: any) => e.store_id === b.storeId)).toBe(true);
  });

  it('GET /panel/events: live updates of its own store (and of the whole sandbox), never of another store', async () => {
    const controller = new AbortController();
    const res = await fetch(`${emu.running.admin_url}/panel/events`, { headers: { authorization: `Bearer ${a.token}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (pattern: RegExp) => {
      const deadline = Date.now() + 20_000;
      while (!pattern.test(text) && Date.now() < deadline) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      return text;
    };
    await readUntil(/event: hello/);
    // B's order first, then A's: A's message arrives, B's never does.
    expect((await controlCall(emu, 'POST', '/orders', ADMIN, { store_id: b.storeId, scenario: 'pickup_invoice' })).status).toBe(201);
    expect((await controlCall(emu, 'POST', '/orders', ADMIN, { store_id: a.storeId, scenario: 'pickup_invoice' })).status).toBe(201);
    await readUntil(new RegExp(a.storeId));
    controller.abort();
    expect(text).toContain(`"store_id":"${a.storeId}"`);
    expect(text).not.toContain(b.storeId);
  });

  it('never shows a store token again: not in GET /state, the logs, nor the export', async () => {
    const state = JSON.stringify((await controlCall(emu, 'GET', '/state', ADMIN)).body);
    const logs = JSON.stringify((await controlCall(emu, 'GET', '/logs?tail=1000', ADMIN)).body);
    for (const s of [a, b, live]) {
      expect(state).not.toContain(s.token);
      expect(logs).not.toContain(s.token);
      expect(state).not.toContain(s.token.slice(4));
    }
    expect(state).not.toMatch(/mks_/);
  });
});

describe('issuing store tokens', () => {
  it('POST /_emulator/stores answers a store_token (mks_ and 40 letters and digits), different for every store', () => {
    for (const s of [a, b, live]) expect(s.token).toMatch(/^mks_[A-Za-z0-9]{40}$/);
    expect(new Set([a.token, b.token, live.token]).size).toBe(3);
  });

  it('POST /stores/{id}/token (admin) gives a new one, shown once; the old one stops at once; 404 for a store nobody has', async () => {
    const c = await furnishedStore(emu, ADMIN);
    const res = await controlCall(emu, 'POST', `/stores/${c.storeId}/token`, ADMIN);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ store_id: c.storeId, environment: 'test', store_token: expect.stringMatching(/^mks_[A-Za-z0-9]{40}$/), created_at: expect.any(String) });
    const fresh = res.body.data.store_token;
    expect(fresh).not.toBe(c.token);
    expect(await healthFromFreshAddress(emu, [c.token])).toEqual([401]);
    expect((await controlCall(emu, 'GET', `/orders/${c.orders[0]}`, fresh)).status).toBe(200);
    expect((await controlCall(emu, 'POST', `/stores/${NOBODY.storeId}/token`, ADMIN)).status).toBe(404);
  });

  it('DELETE /stores/{id}/token (admin) stops the token; the store stays, reached with the admin token', async () => {
    const c = await furnishedStore(emu, ADMIN);
    const res = await controlCall(emu, 'DELETE', `/stores/${c.storeId}/token`, ADMIN);
    expect(res.body).toEqual({ data: { store_id: c.storeId, revoked: true } });
    expect((await controlCall(emu, 'DELETE', `/stores/${c.storeId}/token`, ADMIN)).body.data.revoked).toBe(false);
    expect(await healthFromFreshAddress(emu, [c.token])).toEqual([401]);
    expect((await controlCall(emu, 'GET', `/orders/${c.orders[0]}`, ADMIN)).status).toBe(200);
  });

  it('keeps store tokens through a bundle as digests only: an emulator restored from it opens each store to its token', async () => {
    const exported = await exportBundle();
    const text = gunzipSync(exported).toString('utf8');
    expect(JSON.parse(text).payload.environments.test.tables.store_tokens.columns).toEqual(['store_id', 'token_sha256', 'created_at']);
    for (const s of [a, b, live]) expect(text).not.toContain(s.token.slice(4));
    const restored = await startTestEmulator({ adminToken: 'another-admin-token-long' });
    try {
      await restoreBundle(restored.running.emulator, decodeBundle(exported));
      expect((await controlCall(restored, 'GET', `/orders/${a.orders[0]}`, a.token)).status).toBe(200);
      expect((await controlCall(restored, 'GET', `/orders/${a.orders[0]}`, b.token)).status).toBe(404);
      const state = (await controlCall(restored, 'GET', '/state', live.token)).body.data;
      expect(state.environments[0].stores.map((s: any) => s.id)).toEqual([live.storeId]);
    } finally {
      await restored.close();
    }
  });

  it('a reset ends every store token with its store (the admin token stays)', async () => {
    const res = await controlCall(emu, 'POST', '/reset', ADMIN);
    expect(res.status).toBe(200);
    expect(await healthFromFreshAddress(emu, [a.token, b.token, live.token])).toEqual([401, 401, 401]);
    expect((await controlCall(emu, 'GET', '/health', ADMIN)).status).toBe(200);
  });
});
