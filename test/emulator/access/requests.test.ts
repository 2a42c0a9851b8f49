import { request as undiciRequest, type Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { controlCall, freshAddress, GuardClock, type Answer } from '../../helpers/tokens.js';
import { ACCESS_LIMITS } from '../../../src/contract/access-requests.js';

// DESIGN: The operator's public test environment — access requests. The integrator asks without a
// token, follows the request with its claim secret, and takes the credential and store token once;
// the operator lists, approves and denies with the admin token. Every refusal changes nothing.

const ADMIN = 'operator-admin-token-0123456789';
const ask = { company: 'Pizzería Ana', contact_email: 'ana@pizzeria.example', system: 'ERP Ana 2.1' };

/** A call from an address of its own (each test's per-IP budgets are its own). */
async function call(emu: TestEmulator, method: string, path: string, options: { token?: string | null; body?: unknown; raw?: string; type?: string; agent?: Agent } = {}): Promise<Answer & { headers: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined || options.raw !== undefined || method !== 'GET') headers['content-type'] = options.type ?? 'application/json';
  const res = await undiciRequest(`${emu.url}${path}`, {
    method: method as 'GET', headers, body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)), dispatcher: options.agent,
  });
  const text = await res.body.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* HTML */
  }
  return { status: res.statusCode, body, headers: res.headers };
}

const listed = async (emu: TestEmulator) => (await controlCall(emu, 'GET', '/access-requests', ADMIN)).body.data as { id: string; status: string }[];

describe('access requests are off unless asked for', () => {
  let emu: TestEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('answers 404 not_found on the page and both integrator routes of an emulator started without --access-requests open', async () => {
    emu = await startTestEmulator({ adminToken: ADMIN });
    expect(emu.running).toMatchObject({ access_requests: 'closed' });
    expect((await call(emu, 'GET', '/access')).status).toBe(404);
    const made = await call(emu, 'POST', '/_emulator/access-requests', { body: ask });
    expect(made).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await call(emu, 'GET', '/_emulator/access-requests/acr_01JABCDEFGHJKMNPQRSTVWXYZ0', { token: `mkc_${'a'.repeat(40)}` })).status).toBe(404);
    expect(await listed(emu)).toEqual([]);
  });

  it('refuses --access-requests open without --admin-token (nobody could approve them)', async () => {
    await expect(startTestEmulator({ accessRequests: true })).rejects.toThrow(/--access-requests open requires --admin-token/);
  });
});

describe('access requests on an open sandbox', () => {
  let emu: TestEmulator;
  // The per-IP guards' minutes: a test that counts to a limit starts one (no wait for a real one).
  const guard = new GuardClock();
  beforeAll(async () => {
    emu = await startTestEmulator({ adminToken: ADMIN, accessRequests: true, guardNow: guard.now });
  });
  afterAll(async () => emu?.close());

  it('says in the ready line that requests are open', () => {
    expect(emu.running).toMatchObject({ access_requests: 'open' });
  });

  it('takes a request without a token: 201 with an acr_ id, pending, and an mkc_ claim secret shown once', async () => {
    const agent = freshAddress();
    const made = await call(emu, 'POST', '/_emulator/access-requests', { body: ask, agent });
    expect(made.status).toBe(201);
    expect(made.body.data).toEqual({ id: expect.stringMatching(/^acr_[0-9A-Z]{26}$/), status: 'pending', claim_secret: expect.stringMatching(/^mkc_[A-Za-z0-9]{40}$/) });
    const row = (await listed(emu)).find((r) => r.id === made.body.data.id)!;
    // The operator's list never shows the claim secret.
    expect(JSON.stringify(row)).not.toContain(made.body.data.claim_secret);
    expect(row).toMatchObject({ status: 'pending', company: 'Pizzería Ana', contact_email: 'ana@pizzeria.example', system: 'ERP Ana 2.1', store_id: null });
    await agent.close();
  });

  it.each([
    ['missing fields', {}, [['company', 'required'], ['contact_email', 'required'], ['system', 'required']]],
    ['an unknown field', { ...ask, phone: '1' }, [['phone', 'unknown_field']]],
    ['an address that is not an e-mail', { ...ask, contact_email: 'ana at pizzeria' }, [['contact_email', 'invalid']]],
    ['a company longer than 120 characters', { ...ask, company: 'x'.repeat(121) }, [['company', 'too_long']]],
    ['a control character in the system', { ...ask, system: 'ERP\u0007' }, [['system', 'invalid']]],
  ])('answers 422 validation_failed with a detail per field for %s, and keeps nothing', async (_name, body, fields) => {
    const before = (await listed(emu)).length;
    const agent = freshAddress();
    const answer = await call(emu, 'POST', '/_emulator/access-requests', { body, agent });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('validation_failed');
    expect(answer.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code])).toEqual(fields);
    expect((await listed(emu)).length).toBe(before);
    await agent.close();
  });

  it('answers 413 payload_too_large to a body over 4096 bytes, before reading it, and keeps nothing', async () => {
    const before = (await listed(emu)).length;
    const answer = await call(emu, 'POST', '/_emulator/access-requests', { raw: JSON.stringify({ ...ask, company: 'x'.repeat(ACCESS_LIMITS.bodyBytes) }) });
    expect(answer).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    expect((await listed(emu)).length).toBe(before);
  });

  it('answers 400 malformed_json to a request that is not JSON (a form posted cross-site cannot send JSON)', async () => {
    const answer = await call(emu, 'POST', '/_emulator/access-requests', { raw: 'company=x', type: 'application/x-www-form-urlencoded' });
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'malformed_json' } } });
  });

  it(`limits one IP to ${ACCESS_LIMITS.perIpPerMinute} requests a minute: then 429 rate_limited with Retry-After, and nothing kept`, async () => {
    guard.freshMinute();
    const agent = freshAddress();
    for (let i = 0; i < ACCESS_LIMITS.perIpPerMinute; i++) expect((await call(emu, 'POST', '/_emulator/access-requests', { body: ask, agent })).status).toBe(201);
    const before = (await listed(emu)).length;
    const refused = await call(emu, 'POST', '/_emulator/access-requests', { body: ask, agent });
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'rate_limited', message: expect.any(String), request_id: expect.stringMatching(/^req_/) } } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await listed(emu)).length).toBe(before);
    // Another address is not held back.
    const other = freshAddress();
    expect((await call(emu, 'POST', '/_emulator/access-requests', { body: ask, agent: other })).status).toBe(201);
    await agent.close();
    await other.close();
  });

  describe('an integrator follows a request with its claim secret', () => {
    let id: string;
    let secret: string;
    beforeAll(async () => {
      const agent = freshAddress();
      ({ id, claim_secret: secret } = (await call(emu, 'POST', '/_emulator/access-requests', { body: { ...ask, company: 'Lomitería Juan' }, agent })).body.data);
      await agent.close();
    });

    it('reads it pending with the claim secret, nothing handed over yet', async () => {
      const read = await call(emu, 'GET', `/_emulator/access-requests/${id}`, { token: secret });
      expect(read).toMatchObject({ status: 200, body: { data: { id, status: 'pending', reason: null, store_id: null, integration_id: null, credential: null, store_token: null } } });
    });

    it('answers a wrong claim secret, none, and an unknown id alike: 404 not_found, never which', async () => {
      const agent = freshAddress();
      const wrong = await call(emu, 'GET', `/_emulator/access-requests/${id}`, { token: `mkc_${'Z'.repeat(40)}`, agent });
      const none = await call(emu, 'GET', `/_emulator/access-requests/${id}`, { agent });
      const unknown = await call(emu, 'GET', '/_emulator/access-requests/acr_01JABCDEFGHJKMNPQRSTVWXYZ0', { token: secret, agent });
      for (const answer of [wrong, none, unknown]) expect(answer.status).toBe(404);
      expect(wrong.body.error.message).toBe(unknown.body.error.message);
      expect(wrong.body.error.code).toBe('not_found');
      await agent.close();
    });

    it('gives a pending requester no store: its claim secret opens no control route', async () => {
      const agent = freshAddress();
      expect((await call(emu, 'GET', '/_emulator/state', { token: secret, agent })).status).toBe(401);
      await agent.close();
    });

    it('lets only the admin token list, approve and deny (a store token gets 403, none 401)', async () => {
      const agent = freshAddress();
      expect((await call(emu, 'GET', '/_emulator/access-requests', { agent })).status).toBe(401);
      expect((await call(emu, 'POST', `/_emulator/access-requests/${id}/approve`, { agent })).status).toBe(401);
      const store = (await controlCall(emu, 'POST', '/stores', ADMIN, { environment: 'test' })).body.data;
      expect((await call(emu, 'POST', `/_emulator/access-requests/${id}/approve`, { token: store.store_token, agent })).body.error.code).toBe('insufficient_scope');
      expect((await call(emu, 'GET', '/_emulator/access-requests', { token: store.store_token, agent })).status).toBe(403);
      await agent.close();
    });

    it('approves: a test store and integration named after the request; the first read hands over a working credential and store token, once', async () => {
      const approved = await controlCall(emu, 'POST', `/access-requests/${id}/approve`, ADMIN);
      expect(approved.status).toBe(200);
      expect(approved.body.data).toMatchObject({ id, status: 'approved', store_id: expect.stringMatching(/^str_/), integration_id: expect.stringMatching(/^int_/), decided_at: expect.any(String) });
      expect(JSON.stringify(approved.body)).not.toMatch(/svs_|mks_/);
      const first = await call(emu, 'GET', `/_emulator/access-requests/${id}`, { token: secret });
      expect(first.body.data).toMatchObject({
        status: 'approved', store_id: approved.body.data.store_id, integration_id: approved.body.data.integration_id,
        credential: expect.stringMatching(/^svk_test_[A-Za-z0-9]+\.svs_test_[A-Za-z0-9]+$/), store_token: expect.stringMatching(/^mks_[A-Za-z0-9]{40}$/),
      });
      // The credential works on the sandbox API, as the integration of that store; the store token opens that store.
      const me = await emu.api('GET', '/me', { credential: first.body.data.credential });
      expect(me.body.data).toMatchObject({ integration: { id: approved.body.data.integration_id, system: 'ERP Ana 2.1' }, store: { id: approved.body.data.store_id, name: 'Lomitería Juan' } });
      const state = await controlCall(emu, 'GET', '/state', first.body.data.store_token);
      expect(state.body.data.access).toEqual({ role: 'store', store_id: approved.body.data.store_id });
      // A replayed claim: the same secret again reads the request, never the secrets again.
      const again = await call(emu, 'GET', `/_emulator/access-requests/${id}`, { token: secret });
      expect(again.body.data).toMatchObject({ status: 'approved', credential: null, store_token: null });
      expect((await listed(emu)).find((r) => r.id === id)).toMatchObject({ claimed_at: expect.any(String) });
    });

    it('decides a request once: approving or denying it again is 409 invalid_status_transition with its current status, and changes nothing', async () => {
      const storesBefore = (await controlCall(emu, 'GET', '/state', ADMIN)).body.data.environments.find((e: { name: string }) => e.name === 'test').stores.length;
      const again = await controlCall(emu, 'POST', `/access-requests/${id}/approve`, ADMIN);
      expect(again).toMatchObject({ status: 409, body: { error: { code: 'invalid_status_transition', details: { current_status: 'approved' } } } });
      const deny = await controlCall(emu, 'POST', `/access-requests/${id}/deny`, ADMIN, { reason: 'Too late' });
      expect(deny.body.error.details).toEqual({ current_status: 'approved' });
      const storesAfter = (await controlCall(emu, 'GET', '/state', ADMIN)).body.data.environments.find((e: { name: string }) => e.name === 'test').stores.length;
      expect(storesAfter).toBe(storesBefore);
    });

    it('answers 404 to approving or denying an unknown request', async () => {
      expect((await controlCall(emu, 'POST', '/access-requests/acr_01JABCDEFGHJKMNPQRSTVWXYZ0/approve', ADMIN)).status).toBe(404);
      expect((await controlCall(emu, 'POST', '/access-requests/nope/deny', ADMIN, { reason: 'Unknown' })).status).toBe(404);
    });
  });

  it('denies with a reason the integrator reads; a reason shorter than 3 characters is 422 and denies nothing', async () => {
    const agent = freshAddress();
    const { id, claim_secret } = (await call(emu, 'POST', '/_emulator/access-requests', { body: ask, agent })).body.data;
    const short = await controlCall(emu, 'POST', `/access-requests/${id}/deny`, ADMIN, { reason: 'no' });
    expect(short).toMatchObject({ status: 422, body: { error: { details: [{ field: 'reason', code: 'too_short' }] } } });
    expect((await call(emu, 'GET', `/_emulator/access-requests/${id}`, { token: claim_secret, agent })).body.data.status).toBe('pending');
    const denied = await controlCall(emu, 'POST', `/access-requests/${id}/deny`, ADMIN, { reason: 'We do not know this company' });
    expect(denied.body.data).toMatchObject({ status: 'denied', reason: 'We do not know this company', store_id: null });
    expect((await call(emu, 'GET', `/_emulator/access-requests/${id}`, { token: claim_secret, agent })).body.data).toMatchObject({
      status: 'denied', reason: 'We do not know this company', credential: null, store_token: null,
    });
    await agent.close();
  });

  it('lists by status, newest first', async () => {
    const pending = (await controlCall(emu, 'GET', '/access-requests?status=pending', ADMIN)).body.data;
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((r: { status: string }) => r.status === 'pending')).toBe(true);
    const all = (await controlCall(emu, 'GET', '/access-requests?limit=200', ADMIN)).body.data as { created_at: string; id: string }[];
    expect(all.map((r) => r.id)).toEqual([...all].sort((a, b) => (a.id < b.id ? 1 : -1)).map((r) => r.id));
    expect((await controlCall(emu, 'GET', '/access-requests?status=lost', ADMIN)).status).toBe(422);
  });

  it('hands over once when two reads after approval race: one gets the secrets, the other null', async () => {
    const agent = freshAddress();
    const { id, claim_secret } = (await call(emu, 'POST', '/_emulator/access-requests', { body: ask, agent })).body.data;
    await controlCall(emu, 'POST', `/access-requests/${id}/approve`, ADMIN);
    const reads = await Promise.all(Array.from({ length: 6 }, () => call(emu, 'GET', `/_emulator/access-requests/${id}`, { token: claim_secret, agent })));
    expect(reads.filter((r) => r.body.data.credential !== null)).toHaveLength(1);
    await agent.close();
  });
});

describe('the cap on pending requests', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ adminToken: ADMIN, accessRequests: true });
  });
  afterAll(async () => emu?.close());

  it(`answers 429 rate_limited with the spec's body once ${ACCESS_LIMITS.pendingMax} requests are pending, and keeps nothing; a decision makes room`, async () => {
    const env = emu.running.emulator.env('test');
    for (let i = 0; i < ACCESS_LIMITS.pendingMax; i++) {
      await env.store.tx((tx) =>
        tx.accessRequests.insertPending(
          { id: env.ids.next('accessRequest'), company: `C${i}`, contactEmail: 'c@example.com', system: 's', claimSha256: Buffer.alloc(32, i), sealKey: Buffer.alloc(32, 1) },
          ACCESS_LIMITS.pendingMax,
          env.clock.now(),
        ),
      );
    }
    const agent = freshAddress();
    const full = await call(emu, 'POST', '/_emulator/access-requests', { body: ask, agent });
    expect(full).toMatchObject({ status: 429, body: { error: { code: 'rate_limited', message: expect.stringMatching(/pendientes/), request_id: expect.stringMatching(/^req_/) } } });
    expect(full.headers['retry-after']).toBe(String(ACCESS_LIMITS.pendingRetryAfterSeconds));
    expect((await listed(emu)).length).toBe(ACCESS_LIMITS.pendingMax);
    const oldest = (await controlCall(emu, 'GET', '/access-requests?limit=200', ADMIN)).body.data.at(-1);
    await controlCall(emu, 'POST', `/access-requests/${oldest.id}/deny`, ADMIN, { reason: 'Duplicate request' });
    expect((await call(emu, 'POST', '/_emulator/access-requests', { body: ask, agent })).status).toBe(201);
    await agent.close();
  });
});
