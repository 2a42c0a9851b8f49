import { createRemoteJWKSet, jwtVerify, compactVerify, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { driveTasks, startReferenceErp, type ReferenceErp, type TaskDriver } from '../../helpers/reference-erp.js';
import { reportSha256, verifyCertificate } from '../../../src/certificates/index.js';
import { CHECK_IDS } from '../../../checks/types.js';
import { realTimePassed, waitFor } from '../../helpers/wait.js';

// DESIGN: a certified observed session earns a certificate (a compact JWS, EdDSA over Ed25519) that
// any JOSE library verifies with the sandbox's public keys; `GET /_emulator/homologation/{id}` carries
// it, with the report it certifies, from then on. jose is the outside verifier.

let emu: TestEmulator;
let erp: ReferenceErp;
let driver: TaskDriver;
let report: any;

beforeAll(async () => {
  emu = await startTestEmulator({ clock: 'system' });
  erp = await startReferenceErp(emu.running.sandbox_base_url, emu.test.credential);
  const id = emu.test.integration_id;
  // Before any session: no certificate, and the key set already holds the key that will sign.
  expect((await emu.control('GET', `/homologation/${id}`)).body.data.certificate).toBeUndefined();
  expect((await emu.control('POST', `/homologation/${id}/start`, { timeout_seconds: 30 })).status).toBe(201);
  driver = driveTasks(emu.running.admin_url, id, erp.operator);
  // The session ends by its own 30 s limit at the latest (on its clock): a report that completes.
  report = await waitFor(async () => {
    const data = (await emu.control('GET', `/homologation/${id}`)).body.data;
    return data.complete ? data : undefined;
  }, () => 'a complete homologation report', { limitMs: 60_000, intervalMs: 200 });
  expect(report.summary.certified, JSON.stringify(report.checks.filter((c: { status: string }) => c.status !== 'pass'))).toBe(true);
});
afterAll(async () => {
  await driver?.stop();
  await erp?.close();
  await emu?.close();
});

const keysUrl = () => new URL(`${emu.running.admin_url}/certificates/keys`);

describe('the certificate of a certified observed session', () => {
  it('is in the report: {id: crt_…, jws}, a JWS that jose verifies with the sandbox\'s JWKS', async () => {
    expect(report.certificate).toEqual({ id: expect.stringMatching(/^crt_[0-9A-Z]{26}$/), jws: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
    expect(decodeProtectedHeader(report.certificate.jws)).toEqual({ alg: 'EdDSA', kid: expect.any(String), typ: 'merchant-kit-certificate+jwt' });
    const { payload } = await jwtVerify(report.certificate.jws, createRemoteJWKSet(keysUrl()), { algorithms: ['EdDSA'], issuer: emu.url, subject: emu.test.integration_id });
    expect(payload).toEqual({
      iss: emu.url, sub: emu.test.integration_id, store_id: emu.test.store_id, system: 'erp', environment: 'test',
      // The reference ERP has a webhook and reconciles with the feed now and then, as the spec suggests.
      intake: 'both', settings: { order_status_authority: 'both', ack_expected: 'on_receipt' },
      checks: report.checks.filter((c: { status: string }) => c.status === 'pass').map((c: { id: string }) => c.id),
      report_sha256: reportSha256(report), iat: expect.any(Number), jti: report.certificate.id,
    });
    for (const id of CHECK_IDS) expect(payload.checks).toContain(id);
    expect(Math.abs((payload.iat as number) - Date.now() / 1000)).toBeLessThan(120);
  });

  it('digests the report it came with: report_sha256 is the SHA-256 of its canonical JSON without the certificate', async () => {
    const { payload } = await compactVerify(report.certificate.jws, createRemoteJWKSet(keysUrl()));
    const claims = JSON.parse(new TextDecoder().decode(payload));
    const { certificate: _c, ...bare } = report;
    expect(claims.report_sha256).toBe(reportSha256(bare));
    expect(claims.report_sha256).not.toBe(reportSha256({ ...bare, notes: [...bare.notes, 'edited'] }));
  });

  it('stays the same from then on: every later read answers the report as certified and the same certificate', async () => {
    // A second of real time (the subject: a certificate made again would carry a later iat).
    await realTimePassed(Date.now(), 1100);
    const again = (await emu.control('GET', `/homologation/${emu.test.integration_id}`)).body.data;
    expect(again).toEqual(report);
  });

  it('is in the ledger (GET /_emulator/certificates) and verifies with the package\'s own verification too', async () => {
    const ledger = (await emu.control('GET', '/certificates')).body.data;
    expect(ledger).toEqual([{
      id: report.certificate.id, integration_id: emu.test.integration_id, store_id: emu.test.store_id, system: 'erp', environment: 'test',
      kid: expect.any(String), report_sha256: reportSha256(report), issued_at: expect.any(String), revoked_at: null, jws: report.certificate.jws,
    }]);
    const keys = (await emu.control('GET', '/certificates/keys')).body;
    const revoked = (await emu.control('GET', '/certificates/revoked')).body.data;
    expect(verifyCertificate(report.certificate.jws, { keys, revoked, report })).toMatchObject({ valid: true });
  });

  it('survives a reset: the ledger, the keys and the revocations stay (what was signed stays verifiable, what was revoked stays revoked)', async () => {
    const keysBefore = (await emu.control('GET', '/certificates/keys')).body;
    await emu.control('POST', `/certificates/${report.certificate.id}/revoke`);
    expect((await emu.control('POST', '/reset')).status).toBe(200);
    expect((await emu.control('GET', '/certificates/keys')).body).toEqual(keysBefore);
    expect((await emu.control('GET', '/certificates')).body.data.map((c: { id: string }) => c.id)).toEqual([report.certificate.id]);
    const revoked = (await emu.control('GET', '/certificates/revoked')).body.data;
    expect(revoked).toEqual([{ id: report.certificate.id, revoked_at: expect.any(String) }]);
    expect(verifyCertificate(report.certificate.jws, { keys: keysBefore, revoked, report })).toMatchObject({ valid: false, reason: 'revoked' });
    // The session went with the reset: the report is no longer certified, and carries no certificate.
    expect((await emu.control('GET', `/homologation/${emu.test.integration_id}`)).body.data.certificate).toBeUndefined();
  });
});
