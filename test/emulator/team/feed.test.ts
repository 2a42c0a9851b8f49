import { beforeAll, describe, expect, it } from 'vitest';
import type { Response } from '../../helpers/emulator.js';
import { PG_URL } from '../../helpers/postgres.js';
import type { Receiver } from '../../helpers/receiver.js';
import { byEventId, freshKey, hook, readFeed, sentinel, simulate, startTeamWithReceiver, useTeams, type Member, type Team } from '../../helpers/team.js';

// DESIGN, Storage and the team sandbox: "positions are assigned so that a client paging the feed
// while other processes write never skips an event and sees each once, in creation order", and
// webhooks are delivered at least once, by one process per attempt. Every process writes at once
// (simulated orders, acks, status changes) while a reader pages the feed through all of them.

useTeams();
let team: Team;
let rx: Receiver;
// Limits off: this is about order, not the 120 a minute of one integration.
beforeAll(async () => ({ team, rx } = await startTeamWithReceiver({ processes: 3, args: ['--limits', 'off'] })));

const ORDERS_PER_PROCESS = 12;

/** The feed position a cursor names (`e1:<seq>:<created_at>`, base64url). */
const positionOf = (cursor: string) => Number(Buffer.from(cursor, 'base64url').toString('utf8').split(':')[1]);

/** One process's writes: orders simulated on it, acked on it, accepted on the next process. */
async function write(m: Member, i: number): Promise<void> {
  const next = team.members[(i + 1) % team.members.length]!;
  for (let n = 0; n < ORDERS_PER_PROCESS; n++) {
    const order = await simulate(team, team.test.store_id, m);
    const ack = await m.api('POST', `/orders/${order.id}/ack`, { body: { external_id: `ERP-${i}-${n}` }, idempotencyKey: freshKey() });
    expect(ack.status).toBe(200);
    const accepted = await next.api('POST', `/orders/${order.id}/status`, { body: { status: 'accepted' }, idempotencyKey: freshKey() });
    expect(accepted.status).toBe(200);
  }
}

describe.skipIf(!PG_URL)('the feed and webhooks while every process writes', () => {
  it('lists every event once, in creation order, to a reader paging through every process during the writes, and delivers each once', async () => {
    // What came before (the menu's store.updated) is not part of the race.
    const before = (await readFeed(team)).length;
    const secret = await hook(team, rx.url);
    let writing = true;
    const seen: any[] = [];
    const positions: number[] = [];
    const read = async () => {
      let after: string | null = null;
      for (;;) {
        const done = !writing;
        const res: Response = await team.api('GET', `/events?limit=7${after ? `&after=${after}` : ''}`);
        expect(res.status).toBe(200);
        seen.push(...res.body.data);
        if (res.body.data.length > 0) {
          positions.push(positionOf(res.body.next_cursor));
          after = res.body.next_cursor;
        }
        if (done && res.body.data.length === 0) return;
      }
    };
    const reader = read();
    await Promise.all(team.members.map((m, i) => write(m, i)));
    writing = false;
    await reader;

    const total = team.members.length * ORDERS_PER_PROCESS * 3;
    const ids = seen.map((e) => e.id);
    const written = seen.slice(before);
    expect(new Set(ids).size).toBe(ids.length);
    expect(written).toHaveLength(total);
    // Strictly increasing positions, and the same list as a reading after the writes: nothing was skipped.
    expect(positions).toEqual([...new Set(positions)].sort((x, y) => x - y));
    const after = await readFeed(team);
    expect(after.slice(before).map((e) => e.id)).toEqual(ids.slice(before));
    // Creation order: each order's own events come as they were written.
    const byOrder = new Map<string, string[]>();
    for (const e of written) byOrder.set(e.data.order.id, [...(byOrder.get(e.data.order.id) ?? []), e.type]);
    expect(byOrder.size).toBe(team.members.length * ORDERS_PER_PROCESS);
    for (const types of byOrder.values()) expect(types).toEqual(['order.created', 'order.updated', 'order.status_changed']);

    // Every event delivered once, signed with the webhook's secret.
    await rx.waitFor(total);
    await expect.poll(async () => (await team.api('GET', '/webhook/deliveries?status=succeeded&limit=200')).body.data.length).toBe(total);
    // Nothing more: a sentinel sent after every delivery succeeded comes after any send still under way.
    const counts = byEventId(await sentinel(team.next(), rx), secret);
    expect([...counts.keys()].sort()).toEqual(written.map((e) => e.id).sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });
});
