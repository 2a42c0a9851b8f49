import { beforeAll, describe, expect, it } from 'vitest';
import { PG_URL } from '../../helpers/postgres.js';
import { waitFor } from '../../helpers/wait.js';
import type { Receiver } from '../../helpers/receiver.js';
import { byEventId, hook, sentinel, simulate, startTeamWithReceiver, useTeams, type Team } from '../../helpers/team.js';

// DESIGN, Storage and the team sandbox: "the manual clock (advanced on one, advanced on all)". The
// clock is advanced through one process's control API; the others see it on their next request, and
// what falls due by it (webhook retries) happens.

useTeams();
let team: Team;
let rx: Receiver;
beforeAll(async () => ({ team, rx } = await startTeamWithReceiver({ processes: 3 })));

const clockOf = async (m: Team['members'][number]) => (await m.control('GET', '/clock')).body.data as { now: string; mode: string; offset_seconds: number };

describe.skipIf(!PG_URL)('one clock for every process', () => {
  it('shows every process the same manual clock, and a clock advanced on one process on the next request of each other', async () => {
    const [a, b, c] = team.members;
    const before = await Promise.all(team.members.map(clockOf));
    expect(new Set(before.map((k) => k.now)).size).toBe(1);
    expect(before[0]!.mode).toBe('manual');
    const advanced = await a!.control('POST', '/clock/advance', { seconds: 5400 });
    expect(advanced.status).toBe(200);
    const expected = Date.parse(before[0]!.now) + 5400_000;
    for (const m of [b!, c!]) {
      const k = await clockOf(m);
      expect(Date.parse(k.now)).toBe(expected);
      expect(k.offset_seconds).toBe(before[0]!.offset_seconds + 5400);
    }
    // Time-stamped writes on another process carry the advanced time.
    const order = await simulate(team, team.test.store_id, c!);
    expect(Date.parse(order.created_at)).toBe(expected);
    const accepted = await b!.api('POST', `/orders/${order.id}/status`, { body: { status: 'accepted' }, idempotencyKey: `clock-${order.id}` });
    expect(accepted.status).toBe(200);
    expect(Date.parse(accepted.body.data.status_history.at(-1).at)).toBe(expected);
  });

  it('fires a due webhook retry once another process advances the clock to it, not before', async () => {
    const secret = await hook(team, rx.url);
    rx.behave = (_req, n) => ({ status: n === 0 ? 500 : 200 });
    const [a, b, c] = team.members;
    const order = await simulate(team, team.test.store_id, a!);
    await rx.waitFor(1);
    // The first attempt failed: the retry waits for one minute of the emulator's clock.
    const ofOrder = async (m: typeof a) => (await m!.api('GET', '/webhook/deliveries')).body.data.find((d: { event_type: string }) => d.event_type !== 'webhook.test');
    await expect.poll(async () => (await ofOrder(c))?.status).toBe('pending');
    const failed = await ofOrder(b);
    expect(failed.attempt_count).toBe(1);
    // Nothing more before the minute: a sentinel sent after arrives alone, and the retry is still waiting.
    expect(await sentinel(b!, rx)).toHaveLength(1);
    expect((await c!.control('POST', '/clock/advance', { seconds: 59 })).status).toBe(200);
    // The sentinel's process claims every delivery due by the advanced clock with it.
    expect(await sentinel(c!, rx)).toHaveLength(1);
    expect(await ofOrder(a)).toMatchObject({ id: failed.id, status: 'pending', attempt_count: 1 });
    expect((await b!.control('POST', '/clock/advance', { seconds: 1 })).status).toBe(200);
    await waitFor(() => rx.received.filter((r) => JSON.parse(r.body).type !== 'webhook.test').length >= 2, () => `the retry at the receiver (got ${rx.received.length} requests)`);
    await expect.poll(async () => (await ofOrder(a))?.status).toBe('succeeded');
    const ofOrders = rx.received.filter((r) => JSON.parse(r.body).type !== 'webhook.test');
    const counts = byEventId(ofOrders, secret);
    expect([...counts.values()]).toEqual([2]);
    expect(JSON.parse(ofOrders[1]!.body).data.order.id).toBe(order.id);
  });
});
