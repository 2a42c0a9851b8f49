import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { issueForTest } from '../../helpers/certificates.js';
import { controlCall, freshAddress } from '../../helpers/tokens.js';
import { verifyCertificate } from '../../../src/certificates/index.js';
import { jwkThumbprint } from '../../../src/certificates/jwk.js';

// DESIGN: the signing key is made at the sandbox's first start and kept where the sandbox keeps its
// state, never in a bundle; the public keys are a JWKS at an unauthenticated route; a rotation keeps
// what the older keys signed verifiable; a restore keeps the sandbox's keys.

const ADMIN = 'keys-admin-token-0123456789';
let emus: TestEmulator[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const e of emus.splice(0)) await e.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startTestEmulator>[0] = {}): Promise<TestEmulator> {
  const emu = await startTestEmulator(options);
  emus.push(emu);
  return emu;
}

const keysOf = async (emu: TestEmulator) => (await (await fetch(`${emu.url}/_emulator/certificates/keys`)).json()) as { keys: { kid: string; x: string }[] };

describe('the public keys', () => {
  it('are a JWKS of one Ed25519 key from the first start, served without a token (even with --admin-token), its kid the RFC 7638 thumbprint', async () => {
    const emu = await start({ adminToken: ADMIN });
    const agent = freshAddress();
    const res = await fetch(`${emu.url}/_emulator/certificates/keys`);
    expect(res.status).toBe(200);
    const set = (await res.json()) as { keys: Record<string, string>[] };
    expect(set.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[\w-]{43}$/), kid: expect.any(String), alg: 'EdDSA', use: 'sig' }]);
    expect(set.keys[0]!.kid).toBe(jwkThumbprint(set.keys[0]!.x!));
    // Never the private part.
    expect(JSON.stringify(set)).not.toMatch(/"d"/);
    expect((await fetch(`${emu.url}/_emulator/certificates/revoked`)).status).toBe(200);
    // The ledger and the rotation are the admin's.
    expect((await controlCall(emu, 'GET', '/certificates', null, undefined, agent)).status).toBe(401);
    expect((await controlCall(emu, 'POST', '/certificates/rotate-key', null, undefined, agent)).status).toBe(401);
    await agent.close();
  });

  it('rotate: a new key signs from then on, the retired one stays published, and what each signed verifies', async () => {
    const emu = await start();
    const before = await keysOf(emu);
    const old = await issueForTest(emu);
    const rotated = await emu.control('POST', '/certificates/rotate-key');
    expect(rotated.status).toBe(201);
    expect(rotated.body.data).toEqual({ kid: expect.any(String), created_at: expect.any(String), retired: [before.keys[0]!.kid] });
    const after = await keysOf(emu);
    expect(after.keys.map((k) => k.kid)).toEqual([rotated.body.data.kid, before.keys[0]!.kid]);
    const fresh = await issueForTest(emu);
    expect(JSON.parse(Buffer.from(fresh.certificate.jws.split('.')[0]!, 'base64url').toString()).kid).toBe(rotated.body.data.kid);
    for (const c of [old, fresh]) expect(verifyCertificate(c.certificate.jws, { keys: after, report: c })).toMatchObject({ valid: true });
    expect((await emu.control('POST', '/certificates/rotate-key', { kid: 'mine' })).status).toBe(422);
  });

  it('revoke: published in the revocation list, the first time counts, an unknown id is 404', async () => {
    const emu = await start();
    const { certificate } = await issueForTest(emu);
    const first = await emu.control('POST', `/certificates/${certificate.id}/revoke`);
    expect(first.body.data).toMatchObject({ id: certificate.id, revoked_at: expect.any(String) });
    const again = await emu.control('POST', `/certificates/${certificate.id}/revoke`);
    expect(again.body.data.revoked_at).toBe(first.body.data.revoked_at);
    expect((await emu.control('GET', '/certificates/revoked')).body.data).toEqual([{ id: certificate.id, revoked_at: first.body.data.revoked_at }]);
    expect((await emu.control('POST', '/certificates/crt_01JABCDEFGHJKMNPQRSTVWXYZ0/revoke')).status).toBe(404);
  });
});

describe('where the keys are kept', () => {
  it('keeps the key in the data folder across restarts, and keeps it out of a bundle; a restore into the folder keeps it', async () => {
    const data = mkdtempSync(join(tmpdir(), 'mk-keys-'));
    dirs.push(data);
    const first = await start({ memory: false, data });
    const kid = (await keysOf(first)).keys[0]!.kid;
    const issued = await issueForTest(first);
    const bundle = Buffer.from(await (await fetch(`${first.url}/_emulator/export`)).arrayBuffer());
    const text = gunzipSync(bundle).toString('utf8');
    expect(text).not.toContain(kid);
    expect(text).not.toContain(issued.certificate.id);
    await first.close();
    emus = [];
    const second = await start({ memory: false, data });
    expect((await keysOf(second)).keys[0]!.kid).toBe(kid);
    expect((await second.control('GET', '/certificates')).body.data.map((c: { id: string }) => c.id)).toEqual([issued.certificate.id]);
    await second.close();
    emus = [];
    // The bundle brought back into the same folder (start --from): the sandbox's keys and ledger stay.
    const bundleFile = join(data, '..', `${data.split('/').pop()}-bundle.json.gz`);
    writeFileSync(bundleFile, bundle);
    const restored = await start({ memory: false, data, from: bundleFile } as never);
    expect((await keysOf(restored)).keys[0]!.kid).toBe(kid);
    expect(verifyCertificate(issued.certificate.jws, { keys: await keysOf(restored), report: issued })).toMatchObject({ valid: true });
    rmSync(bundleFile, { force: true });
    // The key is in the folder's sandbox database, readable by its owner only.
    expect(readdirSync(data)).toContain('sandbox.sqlite');
    expect(readFileSync(join(data, 'sandbox.sqlite')).length).toBeGreaterThan(0);
  });
});
