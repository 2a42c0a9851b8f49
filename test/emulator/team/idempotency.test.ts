import { beforeAll, describe, expect, it } from 'vitest';
import type { Response } from '../../helpers/emulator.js';
import { PG_URL } from '../../helpers/postgres.js';
import { freshKey, fromEach, readFeed, simulate, startTeam, stock, useTeams, type Team } from '../../helpers/team.js';

// DESIGN, Storage and the team sandbox: "one key on two processes is one request;
// `request_in_progress` while the other works". Three emulator processes on one database get the
// same write at the same moment, round after round.

useTeams();
let team: Team;
beforeAll(async () => {
  team = await startTeam({ processes: 3, args: ['--limits', 'off'] });
  await stock(team);
});

const ROUNDS = 6;

/** One original answer (2xx, no replay header); every other a replay of it or 409 request_in_progress with Retry-After. */
function expectOneEffect(answers: Response[]): Response {
  const originals = answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replay') === null);
  expect(originals, JSON.stringify(answers.map((a) => [a.status, a.body]))).toHaveLength(1);
  const original = originals[0]!;
  for (const a of answers) {
    if (a === original) continue;
    if (a.status === 409) {
      expect(a.body.error.code).toBe('request_in_progress');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    } else {
      expect(a.status).toBe(200);
      expect(a.headers.get('idempotent-replay')).toBe('true');
      expect(a.body).toEqual(original.body);
    }
  }
  return original;
}

const eventsOf = async (type: string, orderId: string) => (await readFeed(team, `types=${type}`)).filter((e) => e.data.order.id === orderId);

describe.skipIf(!PG_URL)('one Idempotency-Key on several processes', () => {
  it('acks an order once when three processes get the same keyed ack at once: one effect, one order.updated', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const order = await simulate(team);
      const key = freshKey();
      const answers = await fromEach(team, (m) => m.api('POST', `/orders/${order.id}/ack`, { body: { external_id: `ERP-${round}` }, idempotencyKey: key }));
      expectOneEffect(answers);
      expect(await eventsOf('order.updated', order.id)).toHaveLength(1);
    }
  });

  it('changes a status once when three processes get the same keyed status change at once: one order.status_changed', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const order = await simulate(team);
      const key = freshKey();
      const answers = await fromEach(team, (m) => m.api('POST', `/orders/${order.id}/status`, { body: { status: 'accepted', estimated_minutes: 20 }, idempotencyKey: key }));
      const original = expectOneEffect(answers);
      expect(original.body.data.status_history.map((h: { status: string }) => h.status)).toEqual(['pending', 'accepted']);
      expect(await eventsOf('order.status_changed', order.id)).toHaveLength(1);
    }
  });

  it('runs a keyed catalog batch once when three processes get it at once: one sync run, replays carry it', async () => {
    for (let round = 0; round < 4; round++) {
      const key = freshKey();
      const body = { operations: [{ op: 'upsert_product', external_id: `BATCH-${round}`, data: { name: `Empanada ${round}`, category_external_id: 'TEAM-CAT', price: '9000' } }] };
      const answers = await fromEach(team, (m) => m.api('POST', '/catalog/batch', { body, idempotencyKey: key }));
      const original = expectOneEffect(answers);
      expect(original.body.data.results).toMatchObject([{ external_id: `BATCH-${round}`, result: 'created' }]);
      // Once more, later, on every process: the same sync run, never a second one.
      for (const again of await fromEach(team, (m) => m.api('POST', '/catalog/batch', { body, idempotencyKey: key }))) {
        expect(again.headers.get('idempotent-replay')).toBe('true');
        expect(again.body.data.sync_run_id).toBe(original.body.data.sync_run_id);
      }
    }
  });

  it('answers 409 idempotency_conflict on another process for the same key with another body', async () => {
    const order = await simulate(team);
    const key = freshKey();
    const [a, b] = team.members;
    expect((await a!.api('POST', `/orders/${order.id}/ack`, { body: { external_id: 'ERP-X' }, idempotencyKey: key })).status).toBe(200);
    const other = await b!.api('POST', `/orders/${order.id}/ack`, { body: { external_id: 'ERP-Y' }, idempotencyKey: key });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
  });
});

describe.skipIf(!PG_URL)('conflicting acks on several processes', () => {
  it('lets exactly one of three concurrent acks with different external_id win; the others answer 409 external_id_conflict', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const order = await simulate(team);
      const answers = await fromEach(team, (m, i) => m.api('POST', `/orders/${order.id}/ack`, { body: { external_id: `ERP-${round}-${i}` }, idempotencyKey: freshKey() }));
      const winners = answers.filter((a) => a.status === 200);
      expect(winners, JSON.stringify(answers.map((a) => [a.status, a.body]))).toHaveLength(1);
      for (const loser of answers.filter((a) => a !== winners[0])) {
        expect(loser.status).toBe(409);
        expect(loser.body.error.code).toBe('external_id_conflict');
      }
      const winner = winners[0]!.body.data.integration.external_id;
      for (const m of team.members) expect((await m.api('GET', `/orders/${order.id}`)).body.data.integration.external_id).toBe(winner);
      expect(await eventsOf('order.updated', order.id)).toHaveLength(1);
    }
  });
});
