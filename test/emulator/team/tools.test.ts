import { beforeAll, describe, expect, it } from 'vitest';
import { PG_URL } from '../../helpers/postgres.js';
import type { Receiver } from '../../helpers/receiver.js';
import { byEventId, freshKey, hook, newStore, sentinel, simulate, startTeamWithReceiver, useTeams, type Team } from '../../helpers/team.js';

// DESIGN, Storage and the team sandbox: "faults, chaos, homologation sessions and recordings" are
// shared: set on one process, they act on the requests and deliveries of the others.

useTeams();
let team: Team;
let rx: Receiver;
beforeAll(async () => ({ team, rx } = await startTeamWithReceiver({ processes: 3 })));

describe.skipIf(!PG_URL)('sandbox tools across processes', () => {
  it('fails the next matching calls on every process as a fault set on one process tells, `times` counted over all', async () => {
    const [a, b, c] = team.members;
    const set = await a!.control('POST', '/faults', { method: 'GET', path: '/sandbox/v1/orders', status: 503, retry_after: 7, times: 2 });
    expect(set.status).toBe(201);
    for (const m of [b!, c!]) {
      const res = await m.api('GET', '/orders');
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('maintenance');
      expect(res.headers.get('retry-after')).toBe('7');
    }
    // Used up: every process answers again, and lists no fault.
    for (const m of team.members) expect((await m.api('GET', '/orders')).status).toBe(200);
    expect((await b!.control('GET', '/faults')).body.data).toEqual([]);

    await c!.control('POST', '/faults', { path: '/sandbox/v1/store', status: 500, times: 5 });
    expect((await a!.api('GET', '/store')).status).toBe(500);
    expect((await b!.control('DELETE', '/faults')).status).toBe(200);
    for (const m of team.members) expect((await m.api('GET', '/store')).status).toBe(200);
  });

  it('duplicates the deliveries every process makes once chaos is set on one of them, and stops once it is cleared on another', async () => {
    const secret = await hook(team, rx.url);
    const [a, b, c] = team.members;
    expect((await a!.control('POST', '/webhooks/chaos', { duplicate_rate: 1 })).status).toBe(200);
    // Orders written on the other two processes: each of their events is delivered twice.
    await simulate(team, team.test.store_id, b!);
    await simulate(team, team.test.store_id, c!);
    await rx.waitFor(4);
    expect([...byEventId(await sentinel(a!, rx), secret).values()]).toEqual([2, 2]);
    for (const m of team.members) expect((await m.control('GET', '/webhooks/chaos')).body.data.duplicate_rate).toBe(1);

    expect((await c!.control('DELETE', '/webhooks/chaos')).status).toBe(200);
    rx.received.length = 0;
    await simulate(team, team.test.store_id, b!);
    await simulate(team, team.test.store_id, a!);
    await rx.waitFor(2);
    expect([...byEventId(await sentinel(c!, rx), secret).values()]).toEqual([1, 1]);
  });

  it('holds deliveries made on another process for the chaos delay set on one', async () => {
    const [a, b] = team.members;
    rx.received.length = 0;
    expect((await a!.control('POST', '/webhooks/chaos', { delay_ms: 1500 })).status).toBe(200);
    const sent = Date.now();
    await simulate(team, team.test.store_id, b!);
    const [got] = await rx.waitFor(1);
    expect(got!.at - sent).toBeGreaterThanOrEqual(1400);
    expect((await b!.control('DELETE', '/webhooks/chaos')).status).toBe(200);
  });

  it('grades the homologation report on one process from the calls an integration made on another', async () => {
    const [a, b] = team.members;
    const made = await a!.control('POST', '/stores', { environment: 'test' });
    const { integration, credential } = made.body.data;
    const before = await a!.control('GET', `/homologation/${integration.id}`);
    expect(before.body.data.checks.find((x: { id: string }) => x.id === 'connection').status).toBe('pending');
    expect((await b!.api('GET', '/me', { credential })).status).toBe(200);
    // Recordings are written a few milliseconds after the call (batched off the request's path).
    await expect.poll(async () => {
      const after = await a!.control('GET', `/homologation/${integration.id}`);
      return after.body.data.checks.find((x: { id: string }) => x.id === 'connection').status;
    }, { interval: 20 }).toBe('pass');
  });

  it('reports on another process a homologation session started on one', async () => {
    const [a, b, c] = team.members;
    const id = team.test.integration_id;
    const started = await a!.control('POST', `/homologation/${id}/start`, { timeout_seconds: 60 });
    expect(started.status).toBe(201);
    expect(started.body.data.notes.join('\n')).not.toMatch(/No session started/);
    const onA = (await a!.control('GET', `/homologation/${id}`)).body.data;
    for (const m of [b!, c!]) {
      const report = (await m.control('GET', `/homologation/${id}`)).body.data;
      expect(report.notes.join('\n')).not.toMatch(/No session started/);
      expect(report.started_at).toBe(started.body.data.started_at);
      expect(report.tasks.map((t: { action: string }) => t.action)).toEqual(onA.tasks.map((t: { action: string }) => t.action));
    }
  });

  // issue 27: a session's process opens a task when its report is asked (snapshot) as well as on its
  // own looks; the other processes report the session as its process saved it, and the person's
  // tools read any of them. A task opened by a report and never saved stayed open until the timeout
  // (docs/team-sandbox.md's observed session ran to its 120 s deadline).
  it('shows on every process a task the session opened while its own process answered a report', async () => {
    const [a, b] = team.members;
    const { integrationId, credential } = await newStore(team);
    const started = await b!.control('POST', `/homologation/${integrationId}/start`, { timeout_seconds: 60 });
    expect(started.status).toBe(201);
    const orders = (await a!.api('GET', '/orders', { credential })).body.data as { id: string; notes: string | null }[];
    const unmapped = orders.find((o) => o.notes === 'homologation unmapped_product order')!;
    expect(unmapped).toBeDefined();
    const importFailure = (on: typeof a, key: string) =>
      on!.api('POST', `/orders/${unmapped.id}/import-failure`, { credential, idempotencyKey: key, body: { code: 'unmapped_product', message: 'Sin código en el ERP.', retryable: true } });
    // The session's two faults answered on its process: its own looks wait for a retry there (up to
    // Retry-After + 2 s), so the report asked of it next is what opens the task.
    expect((await importFailure(b, freshKey())).status).toBe(503);
    expect((await importFailure(b, freshKey())).status).toBe(429);
    // The ERP's import-failure lands on another process.
    expect((await importFailure(a, freshKey())).status).toBeLessThan(300);
    const opened = (report: { tasks: { action: string; status: string }[] }) => report.tasks.filter((t) => t.action === 'import_after_failure' && t.status === 'open').length;
    await expect.poll(async () => opened((await b!.control('GET', `/homologation/${integrationId}`)).body.data), { interval: 20 }).toBe(1);
    // At once on the other processes, where the person reads it: no look of the session is awaited.
    for (const m of team.members) expect(opened((await m.control('GET', `/homologation/${integrationId}`)).body.data)).toBe(1);
  });
});
