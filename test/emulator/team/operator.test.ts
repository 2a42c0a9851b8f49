import { request as undiciRequest } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { PG_URL } from '../../helpers/postgres.js';
import { startTeam, useTeams, type Member, type Team } from '../../helpers/team.js';
import { freshAddress } from '../../helpers/tokens.js';
import { ACCESS_LIMITS } from '../../../src/contract/access-requests.js';

// DESIGN: The operator's public test environment on a team sandbox — one signing key for every process
// (kept in the shared schema), one budget of access requests per IP, and the hand-over of an approved
// request taken once whichever process reads it, also when two read at the same moment.

const ADMIN = 'team-operator-admin-token-0123';
useTeams();
let team: Team;
beforeAll(async () => {
  team = await startTeam({ processes: 2, args: ['--admin-token', ADMIN, '--access-requests', 'open'] });
});

async function call(m: Member, method: string, path: string, options: { token?: string; body?: unknown; agent?: ReturnType<typeof freshAddress> } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (method !== 'GET') headers['content-type'] = 'application/json';
  const res = await undiciRequest(`${m.ready.admin_url}${path}`, {
    method: method as 'GET', headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), dispatcher: options.agent,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

const ask = { company: 'Equipo Sur', contact_email: 'sur@example.com', system: 'ERP Sur' };

describe.skipIf(!PG_URL)('access requests and certificates on a team sandbox', () => {
  it('says in every ready line that requests are open, and every process publishes the same signing key', async () => {
    const [a, b] = team.members;
    for (const m of team.members) expect(m.ready).toMatchObject({ access_requests: 'open' });
    const keysA = (await call(a!, 'GET', '/certificates/keys')).body;
    const keysB = (await call(b!, 'GET', '/certificates/keys')).body;
    expect(keysA.keys).toHaveLength(1);
    expect(keysB).toEqual(keysA);
    // Rotated on one, published on the other.
    const rotated = await call(a!, 'POST', '/certificates/rotate-key', { token: ADMIN });
    expect(rotated.status).toBe(201);
    expect((await call(b!, 'GET', '/certificates/keys')).body.keys.map((k: { kid: string }) => k.kid)).toEqual([rotated.body.data.kid, keysA.keys[0].kid]);
  });

  it('counts one IP\'s requests on every process against one budget', async () => {
    const [a, b] = team.members;
    // The budget is a real minute's (the processes' own clocks: a CLI process takes no guard clock).
    // A count that straddled two minutes saw two budgets: it is made again from another address,
    // then within one minute, instead of waiting for a fresh minute before it.
    for (;;) {
      const agent = freshAddress();
      const minute = Math.floor(Date.now() / 60_000);
      const answers = [];
      for (let i = 0; i <= ACCESS_LIMITS.perIpPerMinute; i++) answers.push((await call(i % 2 ? a! : b!, 'POST', '/access-requests', { body: ask, agent })).status);
      await agent.close();
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      expect(answers).toEqual([...Array(ACCESS_LIMITS.perIpPerMinute).fill(201), 429]);
      return;
    }
  });

  it('approved on one process, the hand-over is taken once when both processes are read at the same moment', async () => {
    const [a, b] = team.members;
    const agent = freshAddress();
    const { id, claim_secret } = (await call(a!, 'POST', '/access-requests', { body: ask, agent })).body.data;
    // Two operators approve at once, one on each process: one store, one 409.
    const decisions = await Promise.all([call(a!, 'POST', `/access-requests/${id}/approve`, { token: ADMIN }), call(b!, 'POST', `/access-requests/${id}/approve`, { token: ADMIN })]);
    expect(decisions.map((d) => d.status).sort()).toEqual([200, 409]);
    const reads = await Promise.all([0, 1, 2, 3].map((i) => call(i % 2 ? a! : b!, 'GET', `/access-requests/${id}`, { token: claim_secret, agent })));
    expect(reads.every((r) => r.status === 200)).toBe(true);
    const handed = reads.filter((r) => r.body.data.credential !== null);
    expect(handed).toHaveLength(1);
    const me = await team.api('GET', '/me', { credential: handed[0]!.body.data.credential });
    expect(me.body.data.store.name).toBe('Equipo Sur');
    const stores = (await call(b!, 'GET', '/state', { token: ADMIN })).body.data.environments.find((e: { name: string }) => e.name === 'test').stores;
    expect(stores.filter((s: { name: string }) => s.name === 'Equipo Sur')).toHaveLength(1);
    await agent.close();
  });

  it('keeps the keys across a restart of every process', async () => {
    const before = (await call(team.members[0]!, 'GET', '/certificates/keys')).body;
    await team.restart();
    expect((await call(team.members[1]!, 'GET', '/certificates/keys')).body).toEqual(before);
  });
});
