import { beforeAll, describe, expect, it } from 'vitest';
import { PG_URL } from '../../helpers/postgres.js';
import type { Receiver } from '../../helpers/receiver.js';
import { freshKey, hook, newStore, readFeed, simulate, startTeamWithReceiver, stock, useTeams, type Team } from '../../helpers/team.js';

// DESIGN, Storage and the team sandbox: "`/_emulator/reset` resets the sandbox for every process"
// (the ready line's credentials stay valid), and the state lives in the database: a restart of every
// process loses nothing.

useTeams();
let team: Team;
let rx: Receiver;
beforeAll(async () => ({ team, rx } = await startTeamWithReceiver({ processes: 3 })));

const credentials = () => team.members.map((m) => m.ready.stores.map((s) => s.credential).sort().join());

describe.skipIf(!PG_URL)('reset and restart of a sandbox of several processes', () => {
  it('loses nothing when every process is killed and started again: stores, orders, feed positions, webhook, idempotent replays, clock', async () => {
    await hook(team, rx.url);
    const made = await newStore(team);
    const orders = [await simulate(team), await simulate(team), await simulate(team)];
    const key = freshKey();
    const acked = await team.api('POST', `/orders/${orders[0].id}/ack`, { body: { external_id: 'ERP-KEEP' }, idempotencyKey: key });
    expect(acked.status).toBe(200);
    await team.control('POST', '/clock/advance', { seconds: 600 });
    const feedBefore = await readFeed(team);
    const cursor = (await team.api('GET', '/events?limit=2')).body.next_cursor;
    const webhookBefore = (await team.api('GET', '/webhook')).body.data;
    const clockBefore = (await team.control('GET', '/clock')).body.data;
    const stateBefore = (await team.control('GET', '/state')).body.data;

    await team.restart();

    expect(new Set(credentials()).size).toBe(1);
    expect(team.members[0]!.ready.stores).toEqual(expect.arrayContaining([expect.objectContaining({ store_id: team.test.store_id, credential: team.test.credential })]));
    for (const m of team.members) {
      expect((await m.control('GET', '/clock')).body.data).toEqual(clockBefore);
      expect((await m.api('GET', '/orders')).body.data.map((o: { id: string }) => o.id)).toEqual(orders.map((o) => o.id));
      expect((await m.api('GET', '/webhook')).body.data).toEqual(webhookBefore);
      expect((await m.api('GET', '/me', { credential: made.credential })).status).toBe(200);
      // The same positions: a cursor handed out before goes on where it stood.
      const page = await m.api('GET', `/events?after=${cursor}&limit=200`);
      expect(page.body.data.map((e: { id: string }) => e.id)).toEqual(feedBefore.slice(2).map((e) => e.id));
      const replay = await m.api('POST', `/orders/${orders[0].id}/ack`, { body: { external_id: 'ERP-KEEP' }, idempotencyKey: key });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replay')).toBe('true');
      expect(replay.body).toEqual(acked.body);
    }
    expect((await readFeed(team)).map((e) => e.id)).toEqual(feedBefore.map((e) => e.id));
    const stateAfter = (await team.control('GET', '/state')).body.data;
    expect(stateAfter.environments).toEqual(stateBefore.environments);
  });

  it('resets every process from one: orders gone everywhere, clock back, faults and chaos cleared, the ready line\'s credentials valid on each', async () => {
    await stock(team);
    const made = await newStore(team);
    await simulate(team);
    await team.control('POST', '/clock/advance', { seconds: 3600 });
    await team.control('POST', '/faults', { path: '/sandbox/v1/store', status: 500, times: 100 });
    await team.control('POST', '/webhooks/chaos', { duplicate_rate: 0.5, delay_ms: 10 });
    // Every process has read all of it (and holds it in its caches).
    for (const m of team.members) {
      expect((await m.api('GET', '/store')).status).toBe(500);
      expect((await m.api('GET', '/me', { credential: made.credential })).status).toBe(200);
      expect((await m.api('GET', '/orders')).body.data.length).toBeGreaterThan(0);
    }
    const [a, b, c] = team.members;
    const reset = await b!.control('POST', '/reset');
    expect(reset.status).toBe(200);
    expect(reset.body.data.clock.offset_seconds).toBe(0);
    for (const m of [a!, c!, b!]) {
      expect((await m.api('GET', '/orders')).body.data).toEqual([]);
      expect((await m.liveApi('GET', '/orders')).body.data).toEqual([]);
      expect((await m.control('GET', '/clock')).body.data.offset_seconds).toBe(0);
      expect((await m.control('GET', '/faults')).body.data).toEqual([]);
      expect((await m.control('GET', '/webhooks/chaos')).body.data).toEqual({ duplicate_rate: 0, reorder: false, delay_ms: 0 });
      expect((await m.api('GET', '/store')).status).toBe(200);
      expect((await m.api('GET', '/me')).status).toBe(200);
      expect((await m.liveApi('GET', '/me')).status).toBe(200);
      // A store made before the reset is gone, its credential with it.
      expect((await m.api('GET', '/me', { credential: made.credential })).status).toBe(401);
      expect((await m.api('GET', '/webhook')).status).toBe(404);
    }
    // The seeded stores work as after a start: they take orders again once they have a product.
    await stock(team);
    const order = await simulate(team, team.test.store_id, c!);
    expect((await a!.api('GET', `/orders/${order.id}`)).status).toBe(200);
  });
});
