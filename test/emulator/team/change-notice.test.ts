import { beforeAll, describe, expect, it } from 'vitest';
import { admin, PG_URL } from '../../helpers/postgres.js';
import { startTeam, useTeams, type Member, type Team } from '../../helpers/team.js';

// The processes of a sandbox tell each other what changed on one LISTEN/NOTIFY channel
// (merchant_kit_changes). Any role that can connect to the database can NOTIFY on it: a payload of
// another shape is logged and ignored, and nothing a listener does with a notice ends the process
// (issue 24: one `NOTIFY merchant_kit_changes, 'null'` ended every process of the sandbox).

useTeams();
let team: Team;
beforeAll(async () => {
  team = await startTeam({ processes: 2 });
});

const alive = (m: Member) => m.process.child.exitCode === null && m.process.child.signalCode === null;

/** Resolves once every process either said `text` on stderr or exited. */
async function saidOrExited(text: string): Promise<void> {
  for (;;) {
    if (team.members.every((m) => !alive(m) || m.process.stderr().includes(text))) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const WRONG = [
  'null',
  '42',
  '"text"',
  '[]',
  '{}',
  'not json at all',
  '{"o":7}',
  '{"o":"someone","c":null}',
  '{"o":"someone","c":[null]}',
  '{"o":"someone","c":"orders"}',
  '{"o":"someone","c":[{"topic":"orders"}]}',
  '{"o":"someone","c":[{"topic":"nonsense","environment":"test"}]}',
  '{"o":"someone","c":[{"topic":"auth","environment":"prod"}]}',
  '{"o":"someone","c":[{"topic":"catalog","environment":"test","storeId":{}}]}',
  '{"o":"someone","c":[{"topic":"events","environment":"test","storeId":"str_x"}]}',
  `{"o":"someone","c":[${'{"topic":"clock","environment":null},'.repeat(150)}{"topic":"clock"}]}`,
];

describe.skipIf(!PG_URL)('a change notice of the wrong shape on the sandbox channel', () => {
  it('is logged and ignored by every process, which goes on answering', async () => {
    await admin(async (c) => {
      for (const payload of WRONG) await c.query('SELECT pg_notify($1, $2)', ['merchant_kit_changes', payload]);
      // A notice of the right shape after them: it is why the wrong ones must not stop the listener.
      await c.query('SELECT pg_notify($1, $2)', ['merchant_kit_changes', '{"o":"someone","c":[{"topic":"clock","environment":null}]}']);
    }, team.database.url);
    await saidOrExited('ignored a change notice');
    for (const m of team.members) {
      expect(alive(m), `stderr: ${m.process.stderr()}`).toBe(true);
      expect((await m.control('GET', '/health')).status).toBe(200);
      expect((await m.api('GET', '/me')).status).toBe(200);
      // Logged without the stack of an exception, and not once per notice: a flood must not flood the log.
      const lines = m.process.stderr().split('\n').filter((l) => l.includes('ignored a change notice'));
      expect(lines).toHaveLength(1);
      expect(m.process.stderr()).not.toMatch(/TypeError|\n\s+at /);
    }
  });

  it('goes on following the sandbox afterwards: a clock advanced on one process is seen on the other', async () => {
    const [a, b] = team.members as [Member, Member];
    const before = Date.parse((await b.control('GET', '/clock')).body.data.now);
    expect((await a.control('POST', '/clock/advance', { seconds: 90 })).status).toBe(200);
    expect(Date.parse((await b.control('GET', '/clock')).body.data.now)).toBe(before + 90_000);
  });
});
