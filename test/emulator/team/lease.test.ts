import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_EXPIRED } from '../../../emulator/adapters/postgres/webhook-claims.js';
import { admin, PG_URL } from '../../helpers/postgres.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { byEventId, hook, newStore, simulate, startTeam, stock, useTeams, type Member, type Team } from '../../helpers/team.js';

// DESIGN, Storage and the team sandbox: "each attempt is made by one process under a lease. A process
// that dies mid-attempt loses the lease after the 10 s response timeout plus 5 s of real time; the
// attempt then counts as failed and the next follows the schedule." The first test reads the lease a
// CLI process (the real defaults) writes; the second waits one out in real time, so its processes run
// startEmulator() with TEST-ONLY options the CLI has no flag for: the one killed a 1 s response timeout
// plus a 1 s margin (a 2 s lease), the one that takes it back a sweep every 250 ms instead of 5 s.

const TIMEOUT_MS = 1000;
const MARGIN_MS = 1000;
const LEASE_MS = TIMEOUT_MS + MARGIN_MS;

useTeams();
let team: Team;
let cli: Member;
/** The last test's sandbox on the system clock, started with the file's (issue 27: the two starts overlap). */
let systemTeam: Promise<Team> | null = null;
beforeAll(async () => {
  if (PG_URL) (systemTeam = startTeam({ processes: 2, clock: 'system' })).catch(() => undefined);
  team = await startTeam({ processes: 1 });
  cli = team.members[0]!;
  await stock(team);
});

/** The claim deadlines (real ms since the epoch) of the deliveries being attempted now. */
async function claimDeadlines(): Promise<number[]> {
  const rows = await admin((c) => c.query("SELECT claim_until FROM merchant_kit_test.webhook_deliveries WHERE status = 'delivering'"), team.database.url);
  return rows.rows.map((r: { claim_until: string }) => Number(r.claim_until));
}

describe.skipIf(!PG_URL)('the lease of a delivery attempt', () => {
  it('runs for the 10 s response timeout plus 5 s of real time from the claim (a CLI process, the defaults)', async () => {
    // Its own store: the attempt held here fails when the receiver closes, and its retry stays out of the next test.
    const { storeId, credential } = await newStore(team);
    const rx = await startReceiver();
    try {
      await hook(team, rx.url, credential);
      rx.behave = () => 'hang';
      const beforeClaim = Date.now();
      await simulate(team, storeId, cli);
      await rx.waitFor(1);
      const afterSend = Date.now();
      const [until, ...more] = await claimDeadlines();
      expect(more).toEqual([]);
      expect(until).toBeGreaterThanOrEqual(beforeClaim + 15_000);
      expect(until).toBeLessThanOrEqual(afterSend + 15_000);
    } finally {
      await rx.close();
    }
  });
});

describe.skipIf(!PG_URL)('a process killed mid-delivery', () => {
  let rx: Receiver;
  afterAll(() => rx?.close());

  it('loses its attempt once its lease has run out: another process counts it failed and sends the retry on schedule', async () => {
    // The doomed process is the only one running when the order is written: another process hears
    // of the delivery at the commit and could claim it first, and then the doomed one would never
    // send (it waited forever under load). The one that takes the attempt back starts after it died.
    await cli.kill();
    // It dies as its first delivery's request has left (helpers/team.ts): before its own 1 s
    // timeout can fire, however late the test's process gets to see the request arrive.
    const doomed = await team.addScripted({ webhookTimeoutMs: TIMEOUT_MS, webhookLeaseMarginMs: MARGIN_MS }, { dieOnFirstRequest: true });
    rx = await startReceiver();
    const secret = await hook(team, rx.url);
    // The first attempt is never answered (its process is gone); later ones succeed.
    rx.behave = (_req, n) => (n > 0 ? { status: 200 } : 'hang');
    // The process that writes an event makes its first attempt (its claim comes after this moment).
    const beforeClaim = Date.now();
    const order = await simulate(team, team.test.store_id, doomed);
    await rx.waitFor(1);
    await doomed.process.exited;
    const sweeper = await team.addScripted({ webhookLeaseSweepMs: 250 });

    // Taken back only once the lease has run out, as one failed attempt.
    await expect.poll(async () => (await sweeper.api('GET', '/webhook/deliveries')).body.data[0].status, { interval: 50 }).toBe('pending');
    expect(Date.now() - beforeClaim).toBeGreaterThanOrEqual(LEASE_MS);
    const deliveries = (await sweeper.api('GET', '/webhook/deliveries')).body.data;
    expect(deliveries).toHaveLength(1);
    const [taken] = deliveries;
    expect(taken).toMatchObject({ attempt_count: 1 });
    expect(taken.attempts).toMatchObject([{ number: 1, succeeded: false, manual: false, response_status: null, error: LEASE_EXPIRED }]);
    // spec: the first retry comes 1 min after the failed attempt (on the emulator's clock).
    const now = Date.parse((await sweeper.control('GET', '/clock')).body.data.now);
    expect(Date.parse(taken.next_attempt_at) - now).toBe(60_000);
    expect(rx.received).toHaveLength(1);

    expect((await sweeper.control('POST', '/clock/advance', { seconds: 60 })).status).toBe(200);
    await rx.waitFor(2);
    await expect.poll(async () => (await sweeper.api('GET', '/webhook/deliveries')).body.data[0].status).toBe('succeeded');
    const [done] = (await sweeper.api('GET', '/webhook/deliveries')).body.data;
    expect(done).toMatchObject({ id: taken.id, attempt_count: 2 });
    expect(done.attempts.map((x: { succeeded: boolean }) => x.succeeded)).toEqual([false, true]);
    // At least once: the same event, signed, twice; never a third time.
    expect([...byEventId(rx.received, secret).entries()]).toEqual([[done.event_id, 2]]);
    expect(JSON.parse(rx.received[1]!.body).data.order.id).toBe(order.id);
  });
});

describe.skipIf(!PG_URL)('a process gone for good after a failed attempt (system clock)', () => {
  it('leaves the retry it scheduled to another process, sent when it falls due', async () => {
    const sys = await systemTeam!;
    await stock(sys);
    const receiver = await startReceiver();
    try {
      const secret = await hook(sys, receiver.url);
      receiver.behave = (_req, n) => ({ status: n === 0 ? 500 : 200 });
      const [a, b] = sys.members;
      await simulate(sys, sys.test.store_id, a!);
      await receiver.waitFor(1);
      await expect.poll(async () => (await b!.api('GET', '/webhook/deliveries')).body.data[0].status).toBe('pending');
      await a!.kill();
      // The minute to the retry passes (moved in the database rather than waited for): b sends it.
      await admin((c) => c.query("UPDATE merchant_kit_test.webhook_deliveries SET next_attempt_at = $1 WHERE status = 'pending'", [Date.now()]), sys.database.url);
      await receiver.waitFor(2);
      await expect.poll(async () => (await b!.api('GET', '/webhook/deliveries')).body.data[0].status).toBe('succeeded');
      expect([...byEventId(receiver.received, secret).values()]).toEqual([2]);
    } finally {
      await receiver.close();
    }
  });
});
