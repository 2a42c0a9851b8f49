import { beforeAll, describe, expect, it } from 'vitest';
import { PG_URL } from '../../helpers/postgres.js';
import type { Receiver } from '../../helpers/receiver.js';
import { byEventId, hook, simulate, startTeamWithReceiver, useTeams, type Team } from '../../helpers/team.js';

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
    await rx.waitFor(1, 15_000);
    // The first attempt failed: the retry waits for one minute of the emulator's clock.
    await expect.poll(async () => (await c!.api('GET', '/webhook/deliveries')).body.data[0]?.status, { timeout: 15_000 }).toBe('pending');
    const [failed] = (await b!.api('GET', '/webhook/deliveries')).body.data;
    expect(failed.attempt_count).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.received).toHaveLength(1);
    expect((await c!.control('POST', '/clock/advance', { seconds: 59 })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.received).toHaveLength(1);
    expect((await b!.control('POST', '/clock/advance', { seconds: 1 })).status).toBe(200);
    await rx.waitFor(2, 15_000);
    await expect.poll(async () => (await a!.api('GET', '/webhook/deliveries')).body.data[0]?.status, { timeout: 15_000 }).toBe('succeeded');
    const counts = byEventId(rx.received, secret);
    expect([...counts.values()]).toEqual([2]);
    expect(JSON.parse(rx.received[1]!.body).data.order.id).toBe(order.id);
  });
});
