import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { VERIFIED_SECRETS_CAP, VerifiedSecrets } from '../../../emulator/api/verified-secrets.js';
import { AuthCache } from '../../../emulator/api/auth-cache.js';
import { LocalChangeFeed } from '../../../emulator/store/changes.js';
import { digestSecret, issueCredential } from '../../../emulator/stores/credentials.js';

// A verified secret is not hashed again while it is presented (emulator/api/verified-secrets.ts): the
// memo only saves the hash, the stored digest still decides every call.
function counted() {
  const calls: string[] = [];
  const secrets = new VerifiedSecrets((secret) => {
    calls.push(secret);
    return digestSecret(secret);
  });
  return { secrets, calls };
}

describe('verified secrets', () => {
  it('hashes a secret until it matched its digest, then not again while it is presented', () => {
    const { secrets, calls } = counted();
    const c = issueCredential('test');
    expect(secrets.matches(c.keyId, c.secret, c.digest)).toBe(true);
    expect(secrets.matches(c.keyId, c.secret, c.digest)).toBe(true);
    expect(secrets.digestOf(c.keyId, c.secret)).toEqual(c.digest);
    expect(calls).toHaveLength(1);
  });

  it('keeps no secret that did not match, however many are tried', () => {
    const { secrets, calls } = counted();
    const c = issueCredential('test');
    for (let i = 0; i < 50; i++) expect(secrets.matches(c.keyId, `${c.secret.slice(0, -2)}${i}`.padEnd(c.secret.length, 'x'), c.digest)).toBe(false);
    expect(secrets.size).toBe(0);
    expect(calls).toHaveLength(50);
  });

  it('refuses another secret of a verified key, hashing it, and keeps the verified one', () => {
    const { secrets, calls } = counted();
    const c = issueCredential('test');
    secrets.matches(c.keyId, c.secret, c.digest);
    for (const other of [`${c.secret.slice(0, -1)}_`, `${c.secret}0`, c.secret.slice(0, -1), '']) {
      expect(secrets.matches(c.keyId, other, c.digest)).toBe(false);
    }
    expect(calls).toHaveLength(5);
    expect(secrets.matches(c.keyId, c.secret, c.digest)).toBe(true);
    expect(calls).toHaveLength(5);
  });

  it('refuses the kept secret once its key stores another digest, and forgets it', () => {
    const { secrets } = counted();
    const c = issueCredential('test');
    const replaced = issueCredential('test');
    secrets.matches(c.keyId, c.secret, c.digest);
    expect(secrets.matches(c.keyId, c.secret, replaced.digest)).toBe(false);
    expect(secrets.size).toBe(0);
    expect(secrets.matches(c.keyId, replaced.secret, replaced.digest)).toBe(true);
  });

  it(`keeps at most ${VERIFIED_SECRETS_CAP} keys`, () => {
    const secrets = new VerifiedSecrets();
    for (let i = 0; i < VERIFIED_SECRETS_CAP * 2 + 10; i++) {
      const c = issueCredential('test');
      expect(secrets.matches(c.keyId, c.secret, c.digest)).toBe(true);
      expect(secrets.size).toBeLessThanOrEqual(VERIFIED_SECRETS_CAP);
    }
  });

  it('shows no secret when inspected or serialized', () => {
    const secrets = new VerifiedSecrets();
    const c = issueCredential('test');
    secrets.matches(c.keyId, c.secret, c.digest);
    const cache = new AuthCache(new LocalChangeFeed(), 'test');
    cache.secrets.matches(c.keyId, c.secret, c.digest);
    for (const shown of [inspect(secrets, { depth: 10, showHidden: true }), JSON.stringify(secrets), inspect(cache, { depth: 10, showHidden: true }), JSON.stringify(cache)]) {
      expect(shown).not.toContain(c.secret);
      expect(shown.replace(/[^0-9a-f]/g, '')).not.toContain(Buffer.from(c.secret.slice(-16)).toString('hex'));
    }
  });

  it("go with the auth cache's records: an auth change of the environment or a reset empties them", () => {
    const changes = new LocalChangeFeed();
    const cache = new AuthCache(changes, 'test');
    const c = issueCredential('test');
    const verify = () => cache.secrets.matches(c.keyId, c.secret, c.digest);
    verify();
    changes.publish({ topic: 'auth', environment: 'live' });
    expect(cache.secrets.size).toBe(1);
    changes.publish({ topic: 'auth', environment: 'test' });
    expect(cache.secrets.size).toBe(0);
    verify();
    changes.publish({ topic: 'reset', environment: null });
    expect(cache.secrets.size).toBe(0);
  });
});
