import { generateKeyPairSync } from 'node:crypto';
import { CompactSign, compactVerify, calculateJwkThumbprint, exportJWK, importJWK, createLocalJWKSet } from 'jose';
import { describe, expect, it } from 'vitest';
import { reportSha256, verifyCertificate, certificateOf } from '../../src/certificates/index.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { publicJwkOf } from '../../src/certificates/jwk.js';
import { signCompact } from '../../src/certificates/jws.js';
import { CERTIFICATE_TYP } from '../../src/contract/certificates.js';

// The certificate's verification (DESIGN: The operator's public test environment), checked against
// jose as an outside JOSE implementation both ways: what this package signs, jose verifies; what
// jose signs, this package verifies; and each way a certificate can be wrong has its own reason.

const report = { schema_version: '1.1', summary: { certified: true, passed: 7 }, checks: [{ id: 'connection', status: 'pass' }], notes: ['ñandú'] };

function payload(overrides: Record<string, unknown> = {}) {
  return {
    iss: 'https://sandbox.example.com', sub: 'int_01JABCDEFGHJKMNPQRSTVWXYZ0', store_id: 'str_01JABCDEFGHJKMNPQRSTVWXYZ0', system: 'erp',
    environment: 'test', intake: 'webhook', settings: { order_status_authority: 'both', ack_expected: 'on_receipt' },
    checks: ['connection'], report_sha256: reportSha256(report), iat: 1_767_000_000, jti: 'crt_01JABCDEFGHJKMNPQRSTVWXYZ0', ...overrides,
  };
}

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, jwk: publicJwkOf(publicKey) };
}

describe('canonicalJson and reportSha256', () => {
  it('writes RFC 8785 canonical JSON: members sorted by UTF-16 code units, no spaces, numbers as ECMAScript writes them', () => {
    // RFC 8785, 3.2.3's sorting example (the names as code points).
    const names = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
    // (A JS object would list "1" first whatever the text says: the order is read from the text.)
    const text = canonicalJson(names);
    const order = ['Carriage Return', 'One', 'Control', 'Latin Small Letter O With Diaeresis', 'Euro Sign', 'Emoji: Grinning Face', 'Hebrew Letter Dalet With Dagesh'];
    expect(order.map((v) => text.indexOf(`"${v}"`))).toEqual(order.map((v) => text.indexOf(`"${v}"`)).sort((a, b) => a - b));
    expect(text.startsWith('{"\\r":"Carriage Return","1":"One"')).toBe(true);
    expect(canonicalJson(JSON.parse('{"b": [1e21, 0.1, -0, 10], "a": {"d": null, "c": "é\\""}}'))).toBe('{"a":{"c":"é\\"","d":null},"b":[1e+21,0.1,0,10]}');
  });

  it('digests the report without its certificate, whatever its spacing or member order', () => {
    const reordered = JSON.parse(JSON.stringify({ notes: report.notes, checks: report.checks, summary: { passed: 7, certified: true }, schema_version: '1.1' }));
    expect(reportSha256({ ...reordered, certificate: { id: 'crt_x', jws: 'a.b.c' } })).toBe(reportSha256(report));
    expect(reportSha256({ ...report, notes: ['nandu'] })).not.toBe(reportSha256(report));
    // A report built in memory digests as its JSON text: a member whose value is undefined is not there.
    expect(reportSha256({ ...report, interrupted: undefined })).toBe(reportSha256(report));
  });
});

describe('verifyCertificate', () => {
  it('accepts a certificate this package signed, and jose verifies the same token with the JWKS', async () => {
    const { privateKey, jwk } = keyPair();
    const jws = signCompact({ alg: 'EdDSA', kid: jwk.kid, typ: CERTIFICATE_TYP }, payload(), privateKey);
    const result = verifyCertificate(jws, { keys: { keys: [jwk] }, revoked: [], report });
    expect(result).toMatchObject({ valid: true, payload: { jti: 'crt_01JABCDEFGHJKMNPQRSTVWXYZ0' }, checked: { revocations: true, report: true } });
    const verified = await compactVerify(jws, createLocalJWKSet({ keys: [jwk] }));
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(payload());
    // The key id is RFC 7638's thumbprint, as jose computes it.
    expect(jwk.kid).toBe(await calculateJwkThumbprint(jwk));
  });

  it('accepts a certificate that jose signed (another implementation of the same RFCs)', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const exported = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(exported);
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload({ system: 'Sistema Ñ' }))))
      .setProtectedHeader({ alg: 'EdDSA', kid })
      .sign(privateKey);
    expect(verifyCertificate(jws, { keys: { keys: [{ ...exported, kid }] } })).toMatchObject({ valid: true, payload: { system: 'Sistema Ñ' } });
    expect(await importJWK({ ...exported, alg: 'EdDSA' })).toBeDefined();
  });

  it('says "bad signature" for a token whose payload was changed after signing', () => {
    const { privateKey, jwk } = keyPair();
    const [h, , s] = signCompact({ alg: 'EdDSA', kid: jwk.kid }, payload(), privateKey).split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify(payload({ sub: 'int_01JZZZZZZZZZZZZZZZZZZZZZZZ' }))).toString('base64url')}.${s}`;
    expect(verifyCertificate(forged, { keys: { keys: [jwk] } })).toMatchObject({ valid: false, reason: 'signature', message: expect.stringMatching(/^bad signature/) });
  });

  it('says "bad signature" for a token signed by another key that claims the sandbox key\'s id', () => {
    const sandbox = keyPair();
    const other = keyPair();
    const jws = signCompact({ alg: 'EdDSA', kid: sandbox.jwk.kid }, payload(), other.privateKey);
    expect(verifyCertificate(jws, { keys: { keys: [sandbox.jwk] } })).toMatchObject({ valid: false, reason: 'signature' });
  });

  it('says "unknown key" for a key id the key set does not have', () => {
    const { privateKey, jwk } = keyPair();
    const jws = signCompact({ alg: 'EdDSA', kid: 'not-a-sandbox-key' }, payload(), privateKey);
    expect(verifyCertificate(jws, { keys: { keys: [jwk] } })).toMatchObject({ valid: false, reason: 'unknown_key', message: 'unknown key: no key of the key set has the id not-a-sandbox-key' });
  });

  it('says "revoked" for a certificate on the revocation list', () => {
    const { privateKey, jwk } = keyPair();
    const jws = signCompact({ alg: 'EdDSA', kid: jwk.kid }, payload(), privateKey);
    const revoked = [{ id: 'crt_01JABCDEFGHJKMNPQRSTVWXYZ0', revoked_at: '2026-01-15T09:00:00-03:00' }];
    expect(verifyCertificate(jws, { keys: { keys: [jwk] }, revoked })).toMatchObject({ valid: false, reason: 'revoked', message: expect.stringContaining('2026-01-15T09:00:00-03:00') });
  });

  it('says "report digest differs" for a report edited after the certificate was issued', () => {
    const { privateKey, jwk } = keyPair();
    const jws = signCompact({ alg: 'EdDSA', kid: jwk.kid }, payload(), privateKey);
    const edited = { ...report, summary: { certified: true, passed: 8 } };
    expect(verifyCertificate(jws, { keys: { keys: [jwk] }, report: edited })).toMatchObject({ valid: false, reason: 'report_digest' });
  });

  it.each([
    ['two parts', 'abc.def'],
    ['a part that is not base64url', 'a+b.c.d'],
    ['a header that is not JSON', `${Buffer.from('nope').toString('base64url')}.e30.AA`],
    ['another algorithm', `${Buffer.from('{"alg":"HS256","kid":"k"}').toString('base64url')}.e30.AA`],
    ['a payload without the certificate\'s fields', `${Buffer.from('{"alg":"EdDSA","kid":"k"}').toString('base64url')}.e30.AA`],
  ])('says "malformed" for %s', (_name, jws) => {
    expect(verifyCertificate(jws, { keys: { keys: [] } })).toMatchObject({ valid: false, reason: 'malformed' });
  });
});

describe('certificateOf', () => {
  it('finds the certificate of a report, of the observer\'s answer, and of {id, jws}', () => {
    const withCertificate = { ...report, certificate: { id: 'crt_1', jws: 'a.b.c' } };
    expect(certificateOf(withCertificate)).toEqual({ jws: 'a.b.c', report: withCertificate });
    expect(certificateOf({ data: withCertificate })).toEqual({ jws: 'a.b.c', report: withCertificate });
    expect(certificateOf({ id: 'crt_1', jws: 'a.b.c' })).toEqual({ jws: 'a.b.c', report: null });
    expect(certificateOf(report)).toBeUndefined();
    expect(certificateOf([1])).toBeUndefined();
  });
});
