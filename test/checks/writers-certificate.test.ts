import { describe, expect, it } from 'vitest';
import { buildReport } from '../../checks/report.js';
import { htmlReport } from '../../checks/writers/html.js';
import { markdownReport } from '../../checks/writers/markdown.js';
import { CHECK_IDS, type CheckResult } from '../../checks/types.js';

// DESIGN: the reports carry the test environment's certificate, and the HTML report says how to
// verify it (docs/homologation.md, The certificate).

const checks: CheckResult[] = CHECK_IDS.map((id) => ({ id, title: id, area: 'orders', mandatory: true, rule: 'spec', status: 'pass', reason: 'ok', duration_ms: 1, evidence: [] }));
const base = buildReport({
  version: '0.0.0', mode: 'observer', startedAt: new Date(0), complete: true,
  target: { base_url: 'https://sandbox.example.com/sandbox/v1', environment: 'test', emulator: true }, integration: { id: 'int_x', store_id: 'str_x', store_name: 'Demo' }, checks,
});
const payload = Buffer.from(JSON.stringify({ iss: 'https://sandbox.example.com', jti: 'crt_01JABCDEFGHJKMNPQRSTVWXYZ0' })).toString('base64url');
const certificate = { id: 'crt_01JABCDEFGHJKMNPQRSTVWXYZ0', jws: `eyJhbGciOiJFZERTQSJ9.${payload}.c2ln` };

describe('the reports of a certified observed session', () => {
  it('HTML: the certificate, its issuer, the JWS and how to verify it (the command, the keys, the revocations, the digest)', () => {
    const html = htmlReport({ ...base, certificate }, 'a'.repeat(64));
    expect(html).toContain('<dd id="cert-id">crt_01JABCDEFGHJKMNPQRSTVWXYZ0</dd>');
    expect(html).toContain('<dd id="cert-issuer">https://sandbox.example.com</dd>');
    expect(html).toContain(certificate.jws);
    expect(html).toContain('npx merchant-kit certificate verify homologation.json --keys https://sandbox.example.com/_emulator/certificates/keys');
    expect(html).toContain('https://sandbox.example.com/_emulator/certificates/revoked');
    expect(html).toMatch(/RFC 8785/);
  });

  it('Markdown: the certificate and the command that verifies it', () => {
    expect(markdownReport({ ...base, certificate })).toContain('Certificate `crt_01JABCDEFGHJKMNPQRSTVWXYZ0`, signed by the test environment. Verify it: `npx merchant-kit certificate verify homologation.json --keys https://sandbox.example.com/_emulator/certificates/keys`');
  });

  it('says nothing of a signed certificate when the report has none (an automatic run)', () => {
    expect(htmlReport(base, 'a'.repeat(64))).not.toContain('How to verify this certificate');
    expect(markdownReport(base)).not.toContain('Verify it');
  });
});
