import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeAdapters } from './harness.js';
import { storeWithIntegration, T0 } from './fixtures.js';
import { authRecords } from '../../../../emulator/stores/repository.js';
import type { AdmitRead, StoragePort } from '../../../../emulator/store/port.js';

// issue 25: a server database's admission keeps a credential's records between requests and gets
// them again only when their rows changed (a stamp of the row versions, checked in the same
// statement): the kept records are handed out as they are, and any write to the credential, its
// integration or its store, through any process, is in the next admission.

function admit(h: { storage: StoragePort }, keyId: string, digest: Buffer, read: AdmitRead | null = null) {
  return h.storage.admissions!.admit({ environment: 'test', credential: { keyId, digest }, ip: '192.0.2.1', limits: true, realNow: T0, now: T0, read });
}

describeAdapters('the credential records an admission keeps', (h) => {
  it('hands out the same records while their rows are unchanged, and new ones after a write through another process', async () => {
    if (h.kind === 'sqlite') return expect(h.storage.admissions).toBeUndefined();
    const env = h.storage.env('test');
    const { storeId, integrationId } = await storeWithIntegration(env);
    const digest = createHash('sha256').update('svs_secret').digest();
    await env.credentials.insert('svk_a', integrationId, digest, T0);
    const first = (await admit(h, 'svk_a', digest)).records;
    expect(first).toEqual(await authRecords(env, 'svk_a'));
    // Unchanged: the very records kept.
    expect((await admit(h, 'svk_a', digest)).records).toBe(first);

    const other = (await h.openAnother()).env('test');
    const changes: Array<[string, () => Promise<unknown>, (r: Awaited<ReturnType<typeof authRecords>>) => unknown, unknown]> = [
      ['the store', async () => other.stores.update({ ...(await other.stores.byId(storeId))!, suspended: true }, T0 + 1), (r) => r!.store.suspended, true],
      ['the integration', () => other.integrations.activate(integrationId, T0 + 2), (r) => r!.integration.status, 'active'],
      ['the credential', () => other.credentials.revoke('svk_a', integrationId, T0 + 3), (r) => r!.credential.revokedAt, T0 + 3],
    ];
    let before = first;
    for (const [, write, field, value] of changes) {
      await write();
      const after = (await admit(h, 'svk_a', digest)).records;
      expect(after).not.toBe(before);
      expect(field(after)).toBe(value);
      expect(after).toEqual(await authRecords(env, 'svk_a'));
      expect((await admit(h, 'svk_a', digest)).records).toBe(after);
      before = after;
    }
    // Another key: records of its own; a key that does not exist: none.
    expect((await admit(h, 'svk_nobody', digest)).records).toBeUndefined();
  });

  it('reads the pages of the credential\'s own integration and store, and none without a credential', async () => {
    if (h.kind === 'sqlite') return;
    const env = h.storage.env('test');
    const { integrationId } = await storeWithIntegration(env);
    const digest = createHash('sha256').update('svs_secret').digest();
    await env.credentials.insert('svk_b', integrationId, digest, T0);
    const products = await admit(h, 'svk_b', digest, { kind: 'products', page: { since: 0, after: '', limit: 10, categoryExternalId: null, active: null } });
    expect(products.products).toMatchObject({ integrationId });
    expect(JSON.parse(products.products!.body.toString('utf8'))).toEqual({ data: [], next_cursor: null });
    const feed = await admit(h, 'svk_b', digest, { kind: 'feed', page: { cursor: null, limit: 10, types: null } });
    expect(feed.feed).toMatchObject({ integrationId, rows: [], cursorEvent: null, now: T0 });
    const nobody = await admit(h, 'svk_nobody', digest, { kind: 'feed', page: { cursor: null, limit: 10, types: null } });
    expect(nobody.feed).toBeUndefined();
  });
});
