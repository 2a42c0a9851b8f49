import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL } from '../../helpers/postgres.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { startTcpCut, throughCut, type TcpCut } from '../../helpers/tcp-cut.js';
import { byEventId, hook, simulate, startTeam, stock, useTeams, type Member, type Team } from '../../helpers/team.js';
import { waitFor } from '../../helpers/wait.js';

// DESIGN, Storage and the team sandbox: each attempt is made by one process under a lease; a process
// that dies mid-attempt loses it after the response timeout plus 5 s. A process that lost its
// database while it sent is not dead: the receiver's answer is known, and it is recorded once the
// database is back, as an idempotency key's answer is (issue 24: a 9 s outage recorded deliveries that
// the receiver had answered 200 as failed, "the emulator process making this attempt stopped", and
// sent them again). The process that sends here reaches the database through a relay the test cuts;
// it runs startEmulator() with a 1 s response timeout (a 6 s lease); the other, a CLI process that
// made the database, is stopped before the order so that the sender alone can claim its delivery.

useTeams();
let team: Team;
let sender: Member;
let relay: TcpCut;
let rx: Receiver;
beforeAll(async () => {
  team = await startTeam({ processes: 1 });
  const server = new URL(team.database.url);
  relay = await startTcpCut({ host: server.hostname, port: Number(server.port || 5432) });
  sender = await team.addScripted({ webhookTimeoutMs: 1000, databaseUrl: throughCut(team.database.url, relay) });
  rx = await startReceiver();
  await stock(team);
});
afterAll(async () => {
  relay?.restore();
  await rx?.close();
  await relay?.close();
});

/** Resolves once the process has written `text` on stderr. */
async function said(m: Member, text: string): Promise<void> {
  await waitFor(() => m.process.stderr().includes(text), () => `the sending process to write "${text}" on stderr; it wrote: ${m.process.stderr().slice(-2000) || '(nothing)'}`);
}

describe.skipIf(!PG_URL)('a delivery answered while its process cannot reach the database', () => {
  it('keeps the answer and records it once the database is back: one attempt, succeeded, sent once', async () => {
    const secret = await hook(team, rx.url);
    // Only the sending process may claim the delivery: the other one reaches the database directly
    // and hears of the order at its commit, before the sender (behind the relay) does, so under load
    // it could send and settle the delivery itself, and the outage would meet no attempt at all.
    const other = team.members[0]!;
    await other.kill();
    // The database goes away while the receiver answers the first attempt.
    rx.behave = (_req, n) => {
      if (n === 0) relay.cut();
      return { status: 200 };
    };
    await simulate(team, team.test.store_id, sender);
    await rx.waitFor(1);
    // The sending process met the outage when it went to record the answer; then the database is back.
    await said(sender, 'webhook dispatcher');
    relay.restore();

    await expect
      .poll(async () => (await sender.api('GET', '/webhook/deliveries')).body.data[0].status, { interval: 250 })
      .not.toBe('delivering');
    const [delivery] = (await sender.api('GET', '/webhook/deliveries')).body.data;
    expect(delivery.status).toBe('succeeded');
    expect(delivery.attempts).toMatchObject([{ number: 1, succeeded: true, response_status: 200, error: null }]);
    expect([...byEventId(rx.received, secret).values()]).toEqual([1]);
  });
});
