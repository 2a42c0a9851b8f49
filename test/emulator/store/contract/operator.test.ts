import { expect, it } from 'vitest';
import { describeAdapters, describePostgres } from './harness.js';
import { storeWithIntegration, T0 } from './fixtures.js';
import type { NewAccessRequest } from '../../../../emulator/access/repository.js';
import type { CertificateRecord, NewSigningKey } from '../../../../emulator/certificates/repository.js';

// The adapter contract of the operator's public test environment: access requests (in the test
// environment, decided once, the hand-over taken once, a cap on pending ones) and the certificates'
// ledger (signing keys, certificates, revocations: the sandbox's, outside its environments).

let n = 0;
const request = (overrides: Partial<NewAccessRequest> = {}): NewAccessRequest => ({
  id: `acr_${String(++n).padStart(26, '0')}`, company: 'Compañía Ñ', contactEmail: 'c@example.com', system: 'ERP', claimSha256: Buffer.alloc(32, n), sealKey: Buffer.alloc(32, 7), ...overrides,
});
const key = (kid: string, createdAt = T0): NewSigningKey => ({ kid, privateKey: Buffer.from(`private-${kid}`), x: `x-${kid}`, createdAt });
const certificate = (id: string, overrides: Partial<CertificateRecord> = {}): CertificateRecord => ({
  id, integrationId: 'int_1', storeId: 'str_1', system: 'ERP', environment: 'test', sessionStartedAt: T0, kid: 'k1', jws: `jws-${id}`,
  report: '{"a":"ñ"}', reportSha256: 'f'.repeat(64), issuedAt: T0, revokedAt: null, ...overrides,
});

describeAdapters('access requests', (h) => {
  it('writes a pending request and reads it back whole', async () => {
    const env = h.storage.env('test');
    const r = request();
    expect(await env.tx((tx) => tx.accessRequests.insertPending(r, 10, T0))).toBe(true);
    expect(await env.accessRequests.byId(r.id)).toEqual({
      ...r, status: 'pending', reason: null, storeId: null, integrationId: null, sealed: null, createdAt: T0, decidedAt: null, claimedAt: null,
    });
    expect(await env.accessRequests.byId('acr_missing')).toBeUndefined();
  });

  it('refuses a request at the cap of pending ones; decided ones do not count', async () => {
    const env = h.storage.env('test');
    const [a, b, c] = [request(), request(), request()];
    expect(await env.tx((tx) => tx.accessRequests.insertPending(a, 2, T0))).toBe(true);
    expect(await env.tx((tx) => tx.accessRequests.insertPending(b, 2, T0 + 1))).toBe(true);
    expect(await env.tx((tx) => tx.accessRequests.insertPending(c, 2, T0 + 2))).toBe(false);
    expect(await env.accessRequests.byId(c.id)).toBeUndefined();
    expect(await env.accessRequests.deny(a.id, 'no', T0 + 3)).toBe(true);
    expect(await env.tx((tx) => tx.accessRequests.insertPending(c, 2, T0 + 4))).toBe(true);
  });

  it('lists newest first, by status when asked, up to the limit', async () => {
    const env = h.storage.env('test');
    const [a, b, c] = [request(), request(), request()];
    for (const [i, r] of [a, b, c].entries()) await env.tx((tx) => tx.accessRequests.insertPending(r, 10, T0 + i));
    await env.accessRequests.deny(b.id, 'no', T0 + 5);
    expect((await env.accessRequests.list(null, 10)).map((r) => r.id)).toEqual([c.id, b.id, a.id]);
    expect((await env.accessRequests.list('pending', 10)).map((r) => r.id)).toEqual([c.id, a.id]);
    expect((await env.accessRequests.list(null, 1)).map((r) => r.id)).toEqual([c.id]);
  });

  it('decides once: approve and deny only a pending request', async () => {
    const env = h.storage.env('test');
    const [a, b] = [request(), request()];
    for (const r of [a, b]) await env.tx((tx) => tx.accessRequests.insertPending(r, 10, T0));
    const sealed = Buffer.from('sealed ñ');
    expect(await env.tx((tx) => tx.accessRequests.approve(a.id, { storeId: 'str_a', integrationId: 'int_a', sealed }, T0 + 1))).toBe(true);
    expect(await env.accessRequests.approve(a.id, { storeId: 'str_b', integrationId: 'int_b', sealed }, T0 + 2)).toBe(false);
    expect(await env.accessRequests.deny(a.id, 'late', T0 + 2)).toBe(false);
    expect(await env.accessRequests.byId(a.id)).toMatchObject({ status: 'approved', storeId: 'str_a', integrationId: 'int_a', sealed, decidedAt: T0 + 1, reason: null });
    expect(await env.accessRequests.deny(b.id, 'Razón ñ', T0 + 3)).toBe(true);
    expect(await env.accessRequests.approve(b.id, { storeId: 's', integrationId: 'i', sealed }, T0 + 4)).toBe(false);
    expect(await env.accessRequests.byId(b.id)).toMatchObject({ status: 'denied', reason: 'Razón ñ', storeId: null, decidedAt: T0 + 3 });
  });

  it('hands the sealed secrets over once', async () => {
    const env = h.storage.env('test');
    const r = request();
    await env.tx((tx) => tx.accessRequests.insertPending(r, 10, T0));
    expect(await env.accessRequests.takeSealed(r.id, T0)).toBeNull();
    await env.accessRequests.approve(r.id, { storeId: 's', integrationId: 'i', sealed: Buffer.from([1, 2, 3]) }, T0 + 1);
    expect(await env.accessRequests.takeSealed(r.id, T0 + 2)).toEqual(Buffer.from([1, 2, 3]));
    expect(await env.accessRequests.takeSealed(r.id, T0 + 3)).toBeNull();
    expect(await env.accessRequests.byId(r.id)).toMatchObject({ sealed: null, claimedAt: T0 + 2 });
  });

  it('rolls back with its transaction: an approval whose store is never written leaves the request pending', async () => {
    const env = h.storage.env('test');
    const r = request();
    await env.tx((tx) => tx.accessRequests.insertPending(r, 10, T0));
    await expect(env.tx(async (tx) => {
      await storeWithIntegration(tx);
      await tx.accessRequests.approve(r.id, { storeId: 's', integrationId: 'i', sealed: Buffer.from([1]) }, T0 + 1);
      throw new Error('the store could not be made');
    })).rejects.toThrow('could not be made');
    expect(await env.accessRequests.byId(r.id)).toMatchObject({ status: 'pending', sealed: null });
  });

  it('is emptied by a reset, with the stores', async () => {
    const env = h.storage.env('test');
    const r = request();
    await env.tx((tx) => tx.accessRequests.insertPending(r, 10, T0));
    await h.storage.admin.reset();
    expect(await env.accessRequests.byId(r.id)).toBeUndefined();
  });
});

describeAdapters('the certificates\' ledger', (h) => {
  it('makes the signing key once, and keeps it', async () => {
    const ledger = h.storage.certificates;
    const first = await ledger.currentKey(() => key('k1'));
    expect(first).toEqual({ ...key('k1'), retiredAt: null });
    expect(await ledger.currentKey(() => key('k2'))).toEqual(first);
    expect(await ledger.keys()).toEqual([first]);
  });

  it('rotates: the new key signs, the old one is retired and still listed after it', async () => {
    const ledger = h.storage.certificates;
    await ledger.currentKey(() => key('k1'));
    expect(await ledger.rotate(key('k2', T0 + 10), T0 + 10)).toEqual(['k1']);
    expect((await ledger.currentKey(() => key('k3'))).kid).toBe('k2');
    expect((await ledger.keys()).map((k) => [k.kid, k.retiredAt])).toEqual([['k2', null], ['k1', T0 + 10]]);
  });

  it('issues one certificate per session: the second issue of a session answers the first', async () => {
    const ledger = h.storage.certificates;
    const a = certificate('crt_1');
    expect(await ledger.issue(a)).toEqual(a);
    expect(await ledger.issue(certificate('crt_2'))).toEqual(a);
    expect(await ledger.issue(certificate('crt_3', { sessionStartedAt: T0 + 1 }))).toMatchObject({ id: 'crt_3' });
    expect(await ledger.bySession('int_1', T0)).toEqual(a);
    expect(await ledger.bySession('int_1', T0 + 2)).toBeUndefined();
    expect(await ledger.byId('crt_2')).toBeUndefined();
    expect((await ledger.list(10)).map((c) => c.id)).toEqual(['crt_3', 'crt_1']);
    expect((await ledger.list(1)).map((c) => c.id)).toEqual(['crt_3']);
  });

  it('revokes once (the first time counts) and lists the revocations', async () => {
    const ledger = h.storage.certificates;
    await ledger.issue(certificate('crt_1'));
    expect(await ledger.revoke('crt_1', T0 + 5)).toMatchObject({ id: 'crt_1', revokedAt: T0 + 5 });
    expect(await ledger.revoke('crt_1', T0 + 9)).toMatchObject({ revokedAt: T0 + 5 });
    expect(await ledger.revoke('crt_none', T0)).toBeUndefined();
    expect(await ledger.revoked()).toEqual([{ id: 'crt_1', revokedAt: T0 + 5 }]);
  });

  it('is untouched by a reset and by a restore of the environments, and not in their dumps', async () => {
    const ledger = h.storage.certificates;
    await ledger.currentKey(() => key('k1'));
    await ledger.issue(certificate('crt_1'));
    await ledger.revoke('crt_1', T0 + 1);
    const dumps = { test: await h.storage.admin.dump('test'), live: await h.storage.admin.dump('live') };
    expect(JSON.stringify(dumps)).not.toMatch(/private-k1|crt_1/);
    await h.storage.admin.reset();
    await h.storage.admin.restore(dumps);
    expect((await ledger.keys()).map((k) => k.kid)).toEqual(['k1']);
    expect(await ledger.revoked()).toEqual([{ id: 'crt_1', revokedAt: T0 + 1 }]);
  });
});

describePostgres('access requests and the ledger on several processes', (h) => {
  it('never lets two processes pass the cap of pending requests together', async () => {
    const other = await h.openAnother();
    const writes = Array.from({ length: 12 }, (_, i) => (i % 2 ? other : h.storage).env('test').tx((tx) => tx.accessRequests.insertPending(request(), 5, T0)));
    const written = await Promise.all(writes);
    expect(written.filter(Boolean)).toHaveLength(5);
    expect(await h.storage.env('test').accessRequests.list('pending', 100)).toHaveLength(5);
  });

  it('hands the sealed secrets to one of two processes taking them at once', async () => {
    const other = await h.openAnother();
    const r = request();
    await h.storage.env('test').tx((tx) => tx.accessRequests.insertPending(r, 10, T0));
    await h.storage.env('test').accessRequests.approve(r.id, { storeId: 's', integrationId: 'i', sealed: Buffer.from([9]) }, T0);
    const takes = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? other : h.storage).env('test').accessRequests.takeSealed(r.id, T0 + 1)));
    expect(takes.filter((t) => t !== null)).toEqual([Buffer.from([9])]);
  });

  it('makes one signing key for processes starting together, and rotates one at a time', async () => {
    const others = await Promise.all([h.openAnother(), h.openAnother()]);
    const made = await Promise.all([h.storage, ...others].map((s, i) => s.certificates.currentKey(() => key(`k${i}`))));
    expect(new Set(made.map((k) => k.kid)).size).toBe(1);
    const rotations = await Promise.all([h.storage, ...others].map((s, i) => s.certificates.rotate(key(`r${i}`), T0 + i)));
    expect(rotations.flat()).toHaveLength(3);
    const keys = await h.storage.certificates.keys();
    expect(keys.filter((k) => k.retiredAt === null)).toHaveLength(1);
    expect(keys).toHaveLength(4);
  });
});
