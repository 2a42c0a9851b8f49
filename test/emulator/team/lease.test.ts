import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_EXPIRED } from '../../../emulator/adapters/postgres/webhook-claims.js';
import { admin, PG_URL } from '../../helpers/postgres.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { byEventId, hook, simulate, startTeam, stock, useTeams, type Member, type Team } from '../../helpers/team.js';

// DESIGN, Storage and the team sandbox: "each attempt is made by one process under a lease. A process
// that dies mid-attempt loses the lease after the 10 s response timeout plus 5 s of real time; the
// attempt then counts as failed and the next follows the schedule." The process killed here runs
// startEmulator() with a 1 s response timeout (the CLI has no flag for it), so its lease is 6 s; the
// two that stay are CLI processes.

const TIMEOUT_MS = 1000;
const LEASE_MS = TIMEOUT_MS + 5000;

useTeams();
let team: Team;
let doomed: Member;
let rx: Receiver;
beforeAll(async () => {
  team = await startTeam({ processes: 2 });
  doomed = await team.addScripted({ webhookTimeoutMs: TIMEOUT_MS });
  rx = await startReceiver();
  await stock(team);
});
afterAll(() => rx?.close());

describe.skipIf(!PG_URL)('a process killed mid-delivery', () => {
  it('loses its attempt after the response timeout plus 5 s: another process counts it failed and sends the retry on schedule', async () => {
    const secret = await hook(team, rx.url);
    // The first attempt is held open and its process killed while it waits; later ones succeed.
    rx.behave = (_req, n) => {
      if (n > 0) return { status: 200 };
      doomed.process.child.kill('SIGKILL');
      return 'hang';
    };
    const [a, b] = team.members;
    // The process that writes an event makes its first attempt (its claim comes after this moment).
    const beforeClaim = Date.now();
    const order = await simulate(team, team.test.store_id, doomed);
    await rx.waitFor(1, 15_000);
    await doomed.process.exited;
    const [held] = (await a!.api('GET', '/webhook/deliveries')).body.data;
    expect(held.status).toBe('delivering');

    // Taken back only once the lease has run out, as one failed attempt.
    await expect.poll(async () => (await b!.api('GET', '/webhook/deliveries')).body.data[0].status, { timeout: 30_000, interval: 250 }).toBe('pending');
    expect(Date.now() - beforeClaim).toBeGreaterThanOrEqual(LEASE_MS);
    const [taken] = (await a!.api('GET', '/webhook/deliveries')).body.data;
    expect(taken).toMatchObject({ id: held.id, attempt_count: 1 });
    expect(taken.attempts).toMatchObject([{ number: 1, succeeded: false, manual: false, response_status: null, error: LEASE_EXPIRED }]);
    // spec: the first retry comes 1 min after the failed attempt (on the emulator's clock).
    const now = Date.parse((await a!.control('GET', '/clock')).body.data.now);
    expect(Date.parse(taken.next_attempt_at) - now).toBe(60_000);
    expect(rx.received).toHaveLength(1);

    expect((await b!.control('POST', '/clock/advance', { seconds: 60 })).status).toBe(200);
    await rx.waitFor(2, 15_000);
    await expect.poll(async () => (await a!.api('GET', '/webhook/deliveries')).body.data[0].status, { timeout: 15_000 }).toBe('succeeded');
    const [done] = (await b!.api('GET', '/webhook/deliveries')).body.data;
    expect(done.attempt_count).toBe(2);
    expect(done.attempts.map((x: { succeeded: boolean }) => x.succeeded)).toEqual([false, true]);
    // At least once: the same event, signed, twice; never a third time.
    expect([...byEventId(rx.received, secret).entries()]).toEqual([[done.event_id, 2]]);
    expect(JSON.parse(rx.received[1]!.body).data.order.id).toBe(order.id);
  });
});

describe.skipIf(!PG_URL)('a process gone for good after a failed attempt (system clock)', () => {
  it('leaves the retry it scheduled to another process, sent when it falls due', async () => {
    const sys = await startTeam({ processes: 2, clock: 'system' });
    await stock(sys);
    const receiver = await startReceiver();
    try {
      const secret = await hook(sys, receiver.url);
      receiver.behave = (_req, n) => ({ status: n === 0 ? 500 : 200 });
      const [a, b] = sys.members;
      await simulate(sys, sys.test.store_id, a!);
      await receiver.waitFor(1, 15_000);
      await expect.poll(async () => (await b!.api('GET', '/webhook/deliveries')).body.data[0].status, { timeout: 15_000 }).toBe('pending');
      await a!.kill();
      // The minute to the retry passes (moved in the database rather than waited for): b sends it.
      await admin((c) => c.query("UPDATE merchant_kit_test.webhook_deliveries SET next_attempt_at = $1 WHERE status = 'pending'", [Date.now()]), sys.database.url);
      await receiver.waitFor(2, 20_000);
      await expect.poll(async () => (await b!.api('GET', '/webhook/deliveries')).body.data[0].status, { timeout: 15_000 }).toBe('succeeded');
      expect([...byEventId(receiver.received, secret).values()]).toEqual([2]);
    } finally {
      await receiver.close();
    }
  });
});
