import { beforeAll, describe, expect, it } from 'vitest';
import { admin, PG_URL } from '../../helpers/postgres.js';
import { waitFor } from '../../helpers/wait.js';
import { startTeam, useTeams, type Member, type Team } from '../../helpers/team.js';

// issue 25 (docs/team-sandbox.md, Decisions: "With the limits off, each process counts its own
// requests"): a process started with --limits off refuses nothing, so it writes no window row per
// request; it counts its requests itself and writes its count for the window a moment later. Its
// X-RateLimit-Remaining is still the whole sandbox's: exact for what it answered itself, the other
// processes' requests within a moment. A process with the limits on counts those tallies against
// the one budget. Manual clock: one rate window for the whole test.

useTeams();
let team: Team;
beforeAll(async () => {
  team = await startTeam({ processes: 2, args: ['--limits', 'off'] });
});

/** A store and integration of its own (control API only: no API request counted yet). */
async function newIntegration(): Promise<{ integrationId: string; credential: string }> {
  const res = await team.control('POST', '/stores', { environment: 'test' });
  expect(res.status).toBe(201);
  return { integrationId: res.body.data.integration.id, credential: res.body.data.credential };
}

const remaining = async (on: Member, credential: string) => {
  const res = await on.api('GET', '/me', { credential });
  expect(res.status).toBe(200);
  return Number(res.headers.get('x-ratelimit-remaining'));
};

/** Resolves once the processes' tallies of `integrationId` written to the shared schema are `counts` (in any order). */
function talliesWritten(integrationId: string, counts: number[]): Promise<void> {
  return admin(async (client) => {
    const read = async () => (await client.query(
      `SELECT count::int AS n FROM merchant_kit_shared.rate_windows WHERE kind = 'requests_tally' AND key LIKE $1 ORDER BY count`, [`${integrationId} %`],
    )).rows.map((r: { n: number }) => r.n);
    await waitFor(async () => JSON.stringify(await read()) === JSON.stringify([...counts].sort((x, y) => x - y)), () => `the tallies of ${integrationId} to be ${counts.join(', ')}`, { intervalMs: 20 });
  }, team.database.url);
}

describe.skipIf(!PG_URL)('X-RateLimit-Remaining with the limits off, across processes', () => {
  it('counts down exactly on one process, shows the other processes\' requests within a moment, and a process with the limits on counts them', async () => {
    const store = await newIntegration();
    const [a, b] = team.members as [Member, Member];
    const onA: number[] = [];
    for (let i = 0; i < 5; i++) onA.push(await remaining(a, store.credential));
    expect(onA).toEqual([119, 118, 117, 116, 115]);
    await talliesWritten(store.integrationId, [5]);
    // b adds a's five, as written, to its own first request.
    expect(await remaining(b, store.credential)).toBe(114);
    await talliesWritten(store.integrationId, [1, 5]);
    expect(await remaining(a, store.credential)).toBe(113);
    await talliesWritten(store.integrationId, [1, 6]);
    // A process with the limits on: its hit is the integration's shared row, plus the tallies.
    const c = await team.addScripted({ limits: true });
    expect(await remaining(c, store.credential)).toBe(112);
    expect(await remaining(a, store.credential)).toBe(111);
    // Another integration has its own count.
    expect(await remaining(b, team.test.credential)).toBeGreaterThan(111);
  });

  it('counts the tallies in the shared hit too, when a fault elsewhere makes the request admitted step by step', async () => {
    const store = await newIntegration();
    const [a, b] = team.members as [Member, Member];
    for (let i = 0; i < 3; i++) await remaining(a, store.credential);
    await talliesWritten(store.integrationId, [3]);
    // Any fault makes the admission leave the count to the route's hit (the window row), which adds
    // the processes' written tallies as the admission does.
    expect((await b.control('POST', '/faults', { method: 'GET', path: '/sandbox/v1/catalog/*', status: 500, code: 'internal_error' })).status).toBe(201);
    try {
      expect(await remaining(b, store.credential)).toBe(116);
    } finally {
      await b.control('DELETE', '/faults');
    }
  });

  it('refuses nothing past the 120th request of the minute and answers Remaining 0', async () => {
    const store = await newIntegration();
    const [a, b] = team.members as [Member, Member];
    const answers = await Promise.all(Array.from({ length: 130 }, (_, i) => (i % 2 ? a : b).api('GET', '/me', { credential: store.credential })));
    expect(answers.map((r) => r.status)).toEqual(Array(130).fill(200));
    await talliesWritten(store.integrationId, [65, 65]);
    expect(await remaining(a, store.credential)).toBe(0);
  });
});
