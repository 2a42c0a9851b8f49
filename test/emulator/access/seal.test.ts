import { describe, expect, it } from 'vitest';
import { claimPrivateKey, claimSecretMatches, claimSecretOf, newClaimSecret } from '../../../emulator/access/claim-secret.js';
import { open, seal } from '../../../emulator/access/seal.js';

// What an approval hands over waits sealed to the claim secret: only that secret opens it.

describe('claim secrets and sealed hand-overs', () => {
  it('makes mkc_ secrets of 40 characters, kept as a digest that only the same secret matches', () => {
    const a = newClaimSecret();
    expect(a.secret).toMatch(/^mkc_[A-Za-z0-9]{40}$/);
    expect(claimSecretMatches(a.secret, a.digest)).toBe(true);
    expect(claimSecretMatches(newClaimSecret().secret, a.digest)).toBe(false);
    expect(claimSecretMatches(`${a.secret}x`, a.digest)).toBe(false);
    expect(claimSecretMatches(undefined, a.digest)).toBe(false);
    expect(claimSecretOf(`bearer ${a.secret}`)).toBe(a.secret);
    expect(claimSecretOf('Bearer mks_abc')).toBeUndefined();
  });

  it('reads the claim secret by the one Bearer rule of every token (http/bearer.ts): the scheme in any case, spaces around', () => {
    const { secret } = newClaimSecret();
    for (const header of [`Bearer ${secret}`, `BEARER   ${secret}`, `  bEaReR ${secret}  `]) expect(claimSecretOf(header)).toBe(secret);
    for (const header of [`Bearer\t${secret}`, `Basic ${secret}`, `Bearer${secret}`, `Bearer ${secret} x`]) expect(claimSecretOf(header)).toBeUndefined();
  });

  it('opens a sealed box with the claim secret that made its key, for the same request only', () => {
    const claim = newClaimSecret();
    const sealed = seal(Buffer.from('{"credential":"svk_test_x.svs_test_y"}'), claim.sealKey, 'acr_1');
    expect(sealed.toString('latin1')).not.toContain('svs_test_y');
    expect(open(sealed, claimPrivateKey(claim.secret), 'acr_1').toString()).toBe('{"credential":"svk_test_x.svs_test_y"}');
    expect(() => open(sealed, claimPrivateKey(newClaimSecret().secret), 'acr_1')).toThrow();
    expect(() => open(sealed, claimPrivateKey(claim.secret), 'acr_2')).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => open(tampered, claimPrivateKey(claim.secret), 'acr_1')).toThrow();
  });
});
