import { expect, it } from 'vitest';
import pg from 'pg';
import { describeAdapters } from './harness.js';
import type { PostgresStorage } from '../../../../emulator/adapters/postgres/index.js';
import { LIMITS } from '../../../../src/contract/limits.js';
import type { RecordedCall } from '../../../../src/contract/observation.js';
import { T0 } from './fixtures.js';
import { RING_SIZE } from '../../../../emulator/store/coordination.js';

// The adapter contract for what processes share: idempotency claims, rate windows, the one-batch
// rule, faults, chaos, the observer's recordings and sessions, the demo stores, and reset.

const response = { status: 201, body: { data: { id: 'ord_1', nota: 'Ñ' } }, headers: { 'x-request-id': 'req_1' } };

function call(path: string, at = T0): RecordedCall {
  return { seq: 0, at, arrived_after: at - 1, answered_at: at + 2, method: 'POST', path, status: 200, code: null, idempotency_key: null, duration_ms: 1.5, body_sha256: null, request_id: 'req_x', facts: { a: 1, b: 'ñ', c: null }, injected: false };
}

describeAdapters('coordination', (h) => {
  it('claims an idempotency key once, then answers in progress, replay or conflict', async () => {
    const claims = h.storage.coordination.idempotency;
    expect(await claims.claim('test', 'int_1', 'k1', 'fp', T0)).toEqual({ kind: 'fresh' });
    expect(await claims.claim('test', 'int_1', 'k1', 'fp', T0)).toEqual({ kind: 'in_progress' });
    // Keys are per environment and integration.
    expect(await claims.claim('live', 'int_1', 'k1', 'fp', T0)).toEqual({ kind: 'fresh' });
    expect(await claims.claim('test', 'int_2', 'k1', 'fp', T0)).toEqual({ kind: 'fresh' });
    await claims.finish('test', 'int_1', 'k1', response);
    expect(await claims.claim('test', 'int_1', 'k1', 'fp', T0 + 1000)).toEqual({ kind: 'replay', response });
    expect(await claims.claim('test', 'int_1', 'k1', 'other', T0 + 1000)).toEqual({ kind: 'conflict' });
    // Past retention the key is new again.
    expect(await claims.claim('test', 'int_1', 'k1', 'other', T0 + LIMITS.idempotencyRetentionMs + 1)).toEqual({ kind: 'fresh' });
    await claims.release('test', 'int_2', 'k1');
    expect(await claims.claim('test', 'int_2', 'k1', 'fp2', T0)).toEqual({ kind: 'fresh' });
  });

  it('allows each key its allowance per fixed minute', async () => {
    const windows = h.storage.coordination.windows;
    const limit = windows.limit('requests');
    const minute = Math.floor(T0 / 60_000) * 60_000;
    for (let i = 1; i <= limit; i++) {
      const hit = await windows.hit('requests', 'int_1', minute + 10_000);
      expect(hit).toEqual({ allowed: true, remaining: limit - i, retryAfterSeconds: 50 });
    }
    expect(await windows.exhausted('requests', 'int_1', minute + 10_000)).toBe(true);
    expect(await windows.hit('requests', 'int_1', minute + 59_500)).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(await windows.exhausted('requests', 'int_2', minute)).toBe(false);
    expect((await windows.hit('auth_failures', 'int_1', minute)).allowed).toBe(true);
    expect(await windows.hit('requests', 'int_1', minute + 60_000)).toMatchObject({ allowed: true, remaining: limit - 1 });
    expect(await windows.exhausted('requests', 'int_1', minute + 60_000)).toBe(false);
  });

  it('lets one batch run at a time per integration', async () => {
    const gate = h.storage.coordination.batches;
    expect(await gate.acquire('test', 'int_1')).toBe(true);
    expect(await gate.acquire('test', 'int_1')).toBe(false);
    expect(await gate.acquire('live', 'int_1')).toBe(true);
    await gate.release('test', 'int_1');
    expect(await gate.acquire('test', 'int_1')).toBe(true);
  });

  it('takes one use of the first matching fault, by method and glob, until none is left', async () => {
    const faults = h.storage.coordination.faults;
    expect(await faults.take('GET', '/orders')).toBeUndefined();
    const added = await faults.add({ method: 'POST', path: '/orders/*/ack', status: 503, times: 2 });
    expect(added).toEqual({ method: 'POST', path: '/orders/*/ack', status: 503, code: 'maintenance', retry_after: 1, delay_ms: 0, times: 2 });
    await faults.add({ path: '/catalog/**', delay_ms: 5, times: 1 });
    expect(await faults.list()).toHaveLength(2);
    expect(await faults.take('GET', '/orders/ord_1/ack')).toBeUndefined();
    expect(await faults.take('post', '/orders/ord_1/ack')).toMatchObject({ status: 503, times: 1 });
    expect(await faults.take('POST', '/orders/ord_2/ack')).toMatchObject({ status: 503, times: 0 });
    expect(await faults.take('POST', '/orders/ord_3/ack')).toBeUndefined();
    expect(await faults.take('PUT', '/catalog/products/P-1')).toEqual({ method: null, path: '/catalog/**', status: null, code: null, retry_after: null, delay_ms: 5, times: 0 });
    expect(await faults.list()).toEqual([]);
    await faults.add({ path: '/x', status: 429, times: 3 });
    expect(await faults.clear()).toBe(1);
    expect(await faults.take('GET', '/x')).toBeUndefined();
  });

  it('keeps chaos until set again', async () => {
    const chaos = h.storage.coordination.chaos;
    expect(await chaos.get()).toEqual({ duplicate_rate: 0, reorder: false, delay_ms: 0 });
    await chaos.set({ duplicate_rate: 0.5, reorder: true, delay_ms: 10 });
    expect(await chaos.get()).toEqual({ duplicate_rate: 0.5, reorder: true, delay_ms: 10 });
    expect(chaos.current()).toEqual({ duplicate_rate: 0.5, reorder: true, delay_ms: 10 });
    await chaos.set(null);
    expect(await chaos.get()).toEqual({ duplicate_rate: 0, reorder: false, delay_ms: 0 });
    expect(chaos.current()).toEqual({ duplicate_rate: 0, reorder: false, delay_ms: 0 });
  });

  it('keeps the observer\'s calls in order, its sessions and its armed faults', async () => {
    const store = h.storage.coordination.homologation;
    const first = call('/orders');
    const second = call('/catalog/batch', T0 + 1);
    await store.record('int_1', first);
    await store.record('int_1', second);
    await store.record('int_2', call('/me'));
    expect(second.seq).toBeGreaterThan(first.seq);
    const calls = await store.calls('int_1');
    expect(calls).toEqual([first, second]);
    expect(await store.calls('int_none')).toEqual([]);
    const view = { started_at: T0, deadline: T0 + 1, orders: [], tasks: [], deliveries: [], probes: [], faults: [], problems: ['sin webhook'], waiting: 'publish', webhook: true, finished: false, ended_at: null, ended_seq: null };
    expect(await store.session('int_1')).toBeNull();
    await store.saveSession('int_1', view);
    expect(await store.session('int_1')).toEqual(view);
    await store.arm('int_1', [{ status: 503, retry_after: 1, call_seq: null }, { status: 429, retry_after: 2, call_seq: null }]);
    expect(await store.takeArmed('int_2')).toBeUndefined();
    expect(await store.takeArmed('int_1')).toEqual({ status: 503, retry_after: 1, call_seq: null });
    await store.disarm('int_1');
    expect(await store.takeArmed('int_1')).toBeUndefined();
  });

  it('keeps the last calls of each integration, as many as the ring holds', async () => {
    const store = h.storage.coordination.homologation;
    const total = RING_SIZE + 600;
    await Promise.all(Array.from({ length: total }, (_, i) => store.record('int_1', call(`/orders/${i}`))));
    await store.record('int_2', call('/me'));
    const calls = await store.calls('int_1');
    expect(calls).toHaveLength(RING_SIZE);
    expect(calls[0]!.path).toBe('/orders/600');
    expect(calls.at(-1)!.path).toBe(`/orders/${total - 1}`);
    expect(await store.calls('int_2')).toHaveLength(1);
    if (h.kind === 'postgres') {
      // Older calls leave the table too (a few hundred past the ring's size at most).
      const client = new pg.Client({ connectionString: h.database!.url });
      await client.connect();
      const { shared } = (h.storage as PostgresStorage).names;
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${shared}.homologation_calls WHERE integration_id = 'int_1'`);
      await client.end();
      expect(rows[0].n).toBeLessThan(RING_SIZE + 500);
    }
  });

  it('keeps the demo stores and makes them once', async () => {
    const seeds = h.storage.coordination.seeds;
    expect(await seeds.load()).toBeNull();
    const made = await seeds.once(async () => {
      const saved = [{ environment: 'test' as const, storeId: 'str_1', integrationId: 'int_1', credential: 'svs_x' }];
      await seeds.save(saved);
      return saved;
    });
    expect(await seeds.load()).toEqual(made);
  });

  it('resets what is shared: windows, faults, chaos, recordings', async () => {
    const c = h.storage.coordination;
    const minute = Math.floor(T0 / 60_000) * 60_000;
    for (let i = 0; i < c.windows.limit('batches'); i++) await c.windows.hit('batches', 'int_1', minute);
    await c.faults.add({ path: '/x', status: 500, times: 1 });
    await c.chaos.set({ duplicate_rate: 1, reorder: false, delay_ms: 0 });
    await c.homologation.record('int_1', call('/orders'));
    const before = await c.sharedState();
    await c.reset();
    expect(await c.windows.exhausted('batches', 'int_1', minute)).toBe(false);
    expect(await c.faults.list()).toEqual([]);
    expect(await c.chaos.get()).toEqual({ duplicate_rate: 0, reorder: false, delay_ms: 0 });
    expect(await c.homologation.calls('int_1')).toEqual([]);
    const after = await c.sharedState();
    if (before) expect(after!.generation).toBeGreaterThan(before.generation);
    else expect(after).toBeNull();
  });
});
