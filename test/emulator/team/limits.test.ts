import { beforeAll, describe, expect, it } from 'vitest';
import type { Response } from '../../helpers/emulator.js';
import { admin, PG_URL } from '../../helpers/postgres.js';
import { waitFor } from '../../helpers/wait.js';
import { freshKey, newStore, startTeam, useTeams, type Team } from '../../helpers/team.js';

// DESIGN, Storage and the team sandbox: "rate limits (one budget per integration and per IP), the
// one-batch rule" are shared by every process of the sandbox. Requests go round-robin over three
// processes under a manual clock (one rate window for the whole test).

useTeams();
let team: Team;
beforeAll(async () => {
  team = await startTeam({ processes: 3 });
});

/** Requests run `width` at a time, round-robin over the processes. */
async function inWaves<T>(count: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => fn(i + j)))));
  return out;
}

const statuses = (answers: Response[]) => answers.map((a) => a.status);

describe.skipIf(!PG_URL)('rate limits across processes', () => {
  it('answers exactly 120 of 130 requests of one integration and 10 with 429 rate_limited, whichever process gets them', async () => {
    const made = await team.control('POST', '/stores', { environment: 'test' });
    const credential = made.body.data.credential as string;
    const answers = await inWaves(130, 13, () => team.api('GET', '/orders', { credential }));
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(ok).toHaveLength(120);
    expect(limited).toHaveLength(10);
    for (const a of limited) {
      expect(a.body.error.code).toBe('rate_limited');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(a.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // One counter: every answered request took its own place in the budget.
    expect(ok.map((a) => Number(a.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    // Another integration has its own budget.
    expect((await team.api('GET', '/me')).status).toBe(200);
  });

  it('allows 10 batches a minute per integration over all processes, the 11th 429', async () => {
    const store = await newStore(team);
    const batch = (i: number) => team.api('POST', '/catalog/batch', {
      credential: store.credential, idempotencyKey: freshKey(),
      body: { operations: [{ op: 'upsert_category', external_id: `CAT-${i}`, data: { name: `Categoría ${i}` } }] },
    });
    const answers: Response[] = [];
    for (let i = 0; i < 11; i++) answers.push(await batch(i));
    expect(statuses(answers)).toEqual([...Array(10).fill(200), 429]);
    expect(answers[10]!.body.error.code).toBe('rate_limited');
  });

  it('runs one batch of an integration at a time: a second one on another process meets 409 batch_in_progress with Retry-After', async () => {
    const store = await newStore(team);
    const [a, b, c] = team.members;
    const operations = Array.from({ length: 500 }, (_, i) => ({ op: 'upsert_category', external_id: `BIG-${i}`, data: { name: `Categoría ${i}` } }));
    let firstDone = false;
    const first = a!.api('POST', '/catalog/batch', { credential: store.credential, idempotencyKey: freshKey(), body: { operations } }).finally(() => (firstDone = true));
    await gateHeld(team);
    const small = { operations: [{ op: 'upsert_category', external_id: 'SMALL', data: { name: 'Pequeña' } }] };
    const others = await Promise.all([b!, c!].map((m) => m.api('POST', '/catalog/batch', { credential: store.credential, idempotencyKey: freshKey(), body: small })));
    expect(firstDone).toBe(false);
    for (const other of others) {
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('batch_in_progress');
      expect(other.headers.get('retry-after')).toBe('1');
    }
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body.data.summary).toEqual({ total: 500, succeeded: 500, failed: 0 });
    // Free again, on any process: the refused batch changed nothing and goes through now.
    const after = await b!.api('POST', '/catalog/batch', { credential: store.credential, idempotencyKey: freshKey(), body: small });
    expect(after.status).toBe(200);
    expect(after.body.data.results).toMatchObject([{ external_id: 'SMALL', result: 'created' }]);
  });

  // Last: every request of this file comes from one IP.
  it('blocks an IP after 30 authentication failures spread over the processes, on every process, until the minute ends', async () => {
    const answers = await inWaves(30, 6, () => team.api('GET', '/me', { credential: 'svk_test_wrong.svs_test_wrong' }));
    expect(new Set(statuses(answers))).toEqual(new Set([401]));
    for (const m of team.members) {
      const blocked = await m.api('GET', '/me');
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe('rate_limited');
    }
    const now = (await team.control('GET', '/clock')).body.data.now as string;
    const toNextMinute = 60 - new Date(now).getUTCSeconds();
    expect((await team.members[0]!.control('POST', '/clock/advance', { seconds: toNextMinute })).status).toBe(200);
    for (const m of team.members) expect((await m.api('GET', '/me')).status).toBe(200);
  });
});

/** Resolves once a process holds the one-batch gate (a row of the sandbox's shared schema). */
function gateHeld(t: Team): Promise<void> {
  return admin(async (client) => {
    await waitFor(async () => (await client.query('SELECT count(*)::int AS n FROM merchant_kit_shared.batch_gate')).rows[0].n > 0, () => 'a process to take the batch gate', { intervalMs: 5 });
  }, t.database.url);
}
