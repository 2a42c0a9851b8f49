import { exitCodeOf, type HomologationReport } from '../report.js';
import type { CheckResult } from '../types.js';
import { AREA_TITLE, certificateIssuer, evidenceLine, intakeText, STATUS_LABEL, TASK_LABEL, verdictText, verifyCommand, whoRan } from './common.js';
import type { Task } from '../tasks.js';
import { htmlEscape } from '../../src/text/html.js';

// Inline styles only: the page is one file that opens anywhere, offline (no external assets).
const STYLE = `
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d2430}
h1{font-size:1.6rem}.verdict{padding:.8rem 1rem;border-radius:.4rem;font-weight:600}
.verdict.ok{background:#e5f6ea;color:#1b5e2f}.verdict.no{background:#fdeaea;color:#8a1c1c}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #dde1e6;vertical-align:top}
.status{font-weight:700}.pass{color:#1b7f3b}.fail{color:#b3261e}.skip,.pending{color:#8a6d00}
section.check{border:1px solid #dde1e6;border-radius:.4rem;padding:.6rem 1rem;margin:.8rem 0}
section.check ul{font-family:ui-monospace,Menlo,monospace;font-size:.85rem;padding-left:1.2rem}
.certificate{border:3px double #1b5e2f;border-radius:.6rem;padding:1rem 1.5rem;margin:1.5rem 0;background:#f7fcf8}
.tasks li{margin:.3rem 0}.open{color:#8a6d00}.done{color:#1b7f3b}.failed{color:#b3261e}
.certificate dt{font-weight:600}.certificate dd{margin:0 0 .5rem 0}.hash{font-family:ui-monospace,Menlo,monospace;word-break:break-all}
.certificate pre{background:#eef4f0;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
`;

function checkSection(c: CheckResult): string {
  const evidence = c.evidence.map((e) => `<li class="${e.ok ? 'pass' : 'fail'}">${htmlEscape(evidenceLine(e))}</li>`).join('');
  return `<section class="check" id="check-${c.id}" data-check="${c.id}" data-status="${c.status}">
<h3><span class="status ${c.status}">${STATUS_LABEL[c.status]}</span> <code>${c.id}</code> ${htmlEscape(c.title)}${c.mandatory ? '' : ' (optional)'}</h3>
<p>${htmlEscape(c.reason)}</p>
<p><small>Spec rule: ${htmlEscape(c.rule)}</small></p>
${evidence ? `<ul>${evidence}</ul>` : '<p><small>No evidence recorded.</small></p>'}
</section>`;
}

function certificate(report: HomologationReport, jsonSha256: string): string {
  const passed = report.checks.filter((c) => c.status === 'pass').map((c) => c.id).join(', ');
  return `<section class="certificate" id="certificate">
<h2>Homologation certificate</h2>
<p>Every mandatory check of the merchant API v1 homologation passed.</p>
<p id="cert-subject">Run by ${htmlEscape(whoRan(report))}.</p>
<dl>
<dt>Integration</dt><dd id="cert-integration">${htmlEscape(report.integration.id ?? 'unknown')}</dd>
<dt>Store</dt><dd id="cert-store">${htmlEscape([report.integration.store_name, report.integration.store_id].filter(Boolean).join(' · ') || 'unknown')}</dd>
<dt>Environment</dt><dd id="cert-environment">${htmlEscape(report.target.environment ?? 'unknown')}${report.target.emulator ? ' (emulator)' : ''}</dd>
<dt>Intake and settings</dt><dd id="cert-intake">${htmlEscape(intakeText(report) ?? 'unknown')}</dd>
<dt>Date</dt><dd id="cert-date">${htmlEscape(report.generated_at)}</dd>
<dt>Checks passed</dt><dd id="cert-checks">${htmlEscape(passed)}</dd>
<dt>SHA-256 of homologation.json</dt><dd class="hash" id="cert-sha256">${jsonSha256}</dd>
${report.certificate ? signed(report.certificate) : ''}</dl>
${report.certificate ? howToVerify(report.certificate) : ''}</section>`;
}

/** The test environment's signed certificate (an observed session's). */
function signed(c: { id: string; jws: string }): string {
  return `<dt>Certificate</dt><dd id="cert-id">${htmlEscape(c.id)}</dd>
<dt>Issued by</dt><dd id="cert-issuer">${htmlEscape(certificateIssuer(c.jws) ?? 'unknown')}</dd>
<dt>Signed certificate (compact JWS, EdDSA)</dt><dd class="hash" id="cert-jws">${htmlEscape(c.jws)}</dd>
`;
}

/** How anyone checks the certificate: the command, and what it checks, for any JOSE library. */
function howToVerify(c: { id: string; jws: string }): string {
  const issuer = certificateIssuer(c.jws) ?? 'the test environment';
  return `<h3>How to verify this certificate</h3>
<p id="cert-verify">The test environment signed it with Ed25519. Anyone can check that it issued it, that it has not revoked it,
and that <code>homologation.json</code> is the report it certifies (its claim <code>report_sha256</code> is the SHA-256 of that report
without its <code>certificate</code>, in RFC 8785 canonical JSON):</p>
<pre>${htmlEscape(verifyCommand(c.jws))}</pre>
<p>Any JOSE library verifies the signature with the public keys at <code>${htmlEscape(issuer)}/_emulator/certificates/keys</code> (a JWKS);
the revoked certificates are listed at <code>${htmlEscape(issuer)}/_emulator/certificates/revoked</code>.</p>
`;
}

/** The "Your steps" list of an observed session: each task, its state and why. */
function taskList(tasks: Task[]): string {
  if (!tasks.length) return '';
  const items = tasks.map(
    (t) => `<li data-task="${htmlEscape(t.id)}" data-status="${t.status}"><span class="status ${t.status}">${TASK_LABEL[t.status]}</span> <code>${htmlEscape(t.id)}</code> ${htmlEscape(t.action)}: ${htmlEscape(t.instruction)}${t.reason ? ` <small>(${htmlEscape(t.reason)})</small>` : ''}</li>`,
  );
  return `<h2>Your steps</h2>\n<ul class="tasks" id="tasks">${items.join('')}</ul>`;
}

/** `homologation.html`: summary, the person's steps, each check with its evidence, and the certificate when earned. */
export function htmlReport(report: HomologationReport, jsonSha256: string): string {
  const s = report.summary;
  const verdict = `<p class="verdict ${exitCodeOf(report) === 0 ? 'ok' : 'no'}" id="verdict">${htmlEscape(verdictText(report))}</p>`;
  const intake = intakeText(report);
  // DESIGN: a certificate is only for an observed ERP (an automatic run is the reference integrator's).
  const certified = s.certified && report.mode === 'observer';
  const rows = report.checks
    .map((c) => `<tr><td class="status ${c.status}">${STATUS_LABEL[c.status]}</td><td><a href="#check-${c.id}"><code>${c.id}</code></a></td><td>${htmlEscape(AREA_TITLE[c.area])}</td><td>${htmlEscape(c.title)}</td><td>${c.duration_ms} ms</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Homologation report — ${htmlEscape(report.integration.id ?? 'unknown integration')}</title>
<style>${STYLE}</style></head>
<body>
<h1>Homologation report</h1>
<p>Target <code>${htmlEscape(report.target.base_url)}</code> · ${htmlEscape(report.target.environment ?? 'unknown')} environment${report.target.emulator ? ' (emulator)' : ''} · mode ${report.mode} · generated ${htmlEscape(report.generated_at)} by merchant-kit ${htmlEscape(report.tool.version)}</p>
${verdict}
<p id="subject">Run by ${htmlEscape(whoRan(report))}.</p>
${intake ? `<p id="intake">${htmlEscape(intake)}</p>` : ''}
${certified ? certificate(report, jsonSha256) : ''}
<h2>Summary</h2>
<table id="summary"><thead><tr><th>Result</th><th>Check</th><th>Area</th><th>Title</th><th>Time</th></tr></thead><tbody>
${rows}
</tbody></table>
${taskList(report.tasks)}
${report.notes.length ? `<h2>Notes</h2><ul>${report.notes.map((n) => `<li>${htmlEscape(n)}</li>`).join('')}</ul>` : ''}
<h2>Checks</h2>
${report.checks.map(checkSection).join('\n')}
</body></html>
`;
}
