import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { cli, tempConfig, type CliResult } from '../helpers/cli-core.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { issueForTest } from '../helpers/certificates.js';
import { publicJwkOf } from '../../src/certificates/jwk.js';
import { jsonReport } from '../../checks/writers/json.js';

// `merchant-kit certificate verify <file|-> [--keys URL|file] [--report homologation.json]` (DESIGN):
// exit 0 printing the payload when valid, 1 naming why not — bad signature, unknown key, revoked,
// report digest differs — and the operator's `emulator certificates list|revoke|rotate-key`.

let emu: TestEmulator;
let config: ReturnType<typeof tempConfig>;
let dir: string;
let keysUrl: string;

beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator();
  config = tempConfig();
  dir = mkdtempSync(join(tmpdir(), 'mk-verify-'));
  keysUrl = `${emu.running.admin_url}/certificates/keys`;
});
afterAll(async () => {
  await emu?.close();
  config?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[], input?: string): Promise<CliResult> => cli(['--base-url', emu.url, ...args], { env: config.env, input, timeoutMs: 60_000 });

/** A certified report written as `homologate` writes homologation.json. */
async function reportFile(name: string, notes = ['Ñandutí']): Promise<{ path: string; jws: string; id: string; text: string }> {
  const certified = await issueForTest(emu, { notes });
  const path = join(dir, name);
  const text = jsonReport(certified);
  writeFileSync(path, text);
  return { path, jws: certified.certificate.jws, id: certified.certificate.id, text };
}

describe('merchant-kit certificate verify', () => {
  it('exits 0 and prints the payload for a certified report, its digest checked against the file itself', async () => {
    const { path, id } = await reportFile('valid.json');
    const r = await run(['certificate', 'verify', path, '--keys', keysUrl, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ jti: id, sub: emu.test.integration_id, store_id: emu.test.store_id, environment: 'test', checks: ['connection'] });
    const human = await run(['certificate', 'verify', path, '--keys', keysUrl]);
    expect(human.stdout).toMatch(new RegExp(`Certificate:\\s+${id}: valid`));
    expect(human.stdout).toMatch(/Revocations:\s+checked: not revoked/);
    expect(human.stdout).toMatch(/Report:\s+checked: SHA-256 [0-9a-f]{64}/);
  });

  it('reads the JWS alone from stdin, the keys by default from the emulator at the base URL, and the report from --report', async () => {
    const { path, jws } = await reportFile('other.json');
    const r = await run(['certificate', 'verify', '-', '--report', path, '--json'], `${jws}\n`);
    expect(r.code, r.stderr).toBe(0);
  });

  it('exits 1 "bad signature" for a token whose payload was changed', async () => {
    const { jws } = await reportFile('tampered.json');
    const [h, p, s] = jws.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, system: 'Another ERP' })).toString('base64url')}.${s}`;
    const r = await run(['certificate', 'verify', '-', '--keys', keysUrl], forged);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not valid: bad signature/);
  });

  it('exits 1 "unknown key" with a key set that does not have the certificate\'s key id', async () => {
    const { path } = await reportFile('unknown-key.json');
    const keys = join(dir, 'other-keys.json');
    writeFileSync(keys, JSON.stringify({ keys: [publicJwkOf(generateKeyPairSync('ed25519').publicKey)] }));
    const r = await run(['certificate', 'verify', path, '--keys', keys]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not valid: unknown key/);
  });

  it('exits 1 "report digest differs" once the report is edited, and for another report given with --report', async () => {
    const { path, text } = await reportFile('edited.json');
    const edited = join(dir, 'edited-copy.json');
    writeFileSync(edited, text.replace('"passed": 1,', '"passed": 2,'));
    const r = await run(['certificate', 'verify', edited, '--keys', keysUrl]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not valid: report digest differs/);
    const other = await reportFile('another.json', ['another run']);
    const mixed = await run(['certificate', 'verify', path, '--keys', keysUrl, '--report', other.path, '--json']);
    expect(mixed.code).toBe(1);
    // The report re-indented by another tool is the same report.
    const reindented = join(dir, 'reindented.json');
    writeFileSync(reindented, JSON.stringify(JSON.parse(text)));
    expect((await run(['certificate', 'verify', reindented, '--keys', keysUrl])).code).toBe(0);
  });

  it('exits 1 "revoked" once the operator revokes it (emulator certificates revoke), and a rotation keeps older certificates valid', async () => {
    const { path, id } = await reportFile('revoked.json');
    const keep = await reportFile('kept.json');
    const revoked = await run(['emulator', 'certificates', 'revoke', id, '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id, revoked_at: expect.any(String) });
    const r = await run(['certificate', 'verify', path, '--keys', keysUrl]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`not valid: revoked: ${id} was revoked at`));
    const rotated = await run(['emulator', 'certificates', 'rotate-key', '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const { kid, retired } = JSON.parse(rotated.stdout);
    expect(retired).toHaveLength(1);
    expect(kid).not.toBe(retired[0]);
    expect((await run(['certificate', 'verify', keep.path, '--keys', keysUrl])).code).toBe(0);
    const listed = JSON.parse((await run(['emulator', 'certificates', 'list', '--json'])).stdout) as { id: string; revoked_at: string | null }[];
    expect(listed.find((c) => c.id === id)?.revoked_at).not.toBeNull();
    expect(listed.find((c) => c.id === keep.id)?.revoked_at).toBeNull();
    const table = await run(['emulator', 'certificates', 'list']);
    expect(table.stdout).toMatch(new RegExp(`${keep.id}\\s+${emu.test.integration_id}`));
  });

  it('refuses what is not a certificate and plain http keys off loopback', async () => {
    const notReport = join(dir, 'plain.json');
    writeFileSync(notReport, JSON.stringify({ schema_version: '1.1', checks: [] }));
    const none = await run(['certificate', 'verify', notReport, '--keys', keysUrl]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/carries no certificate/);
    const junk = await run(['certificate', 'verify', '-', '--keys', keysUrl], 'not.a.jws');
    expect(junk.code).toBe(1);
    expect(junk.stderr).toMatch(/not valid: not a certificate/);
    const http = await run(['certificate', 'verify', (await reportFile('http.json')).path, '--keys', 'http://sandbox.example.com/_emulator/certificates/keys']);
    expect(http.code).toBe(2);
    expect(http.stderr).toMatch(/must be https/);
    expect((await run(['certificate', 'verify', join(dir, 'missing.json')])).code).toBe(2);
  });
});
