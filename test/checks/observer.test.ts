import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { startReferenceErp, type ErpVariant, type ReferenceErp } from '../helpers/reference-erp.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { HomologationReport } from '../../checks/report.js';
import { ROOT } from '../helpers/cli.js';

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'docs', 'homologation-report.schema.json'), 'utf8')));

let emu: TestEmulator | undefined;
let erp: ReferenceErp | undefined;

afterEach(async () => {
  await erp?.close();
  await emu?.close();
  erp = emu = undefined;
});

/** Starts a session for the ERP's integration and polls the report until complete. */
async function observe(variant: ErpVariant, timeoutSeconds = 20): Promise<{ report: HomologationReport; erp: ReferenceErp }> {
  emu = await startTestEmulator({ clock: 'system' });
  erp = await startReferenceErp(emu.running.sandbox_base_url, emu.test.credential, variant);
  const id = emu.test.integration_id;
  const started = await emu.control('POST', `/homologation/${id}/start`, { timeout_seconds: timeoutSeconds });
  expect(started.status).toBe(201);
  const until = Date.now() + (timeoutSeconds + 5) * 1000;
  for (;;) {
    const res = await emu.control<{ data: HomologationReport }>('GET', `/homologation/${id}`);
    // Every answer, decided or not, is in the report's JSON schema.
    expect(validate(res.body.data), JSON.stringify(validate.errors)).toBe(true);
    if (res.body.data.complete || Date.now() > until) return { report: res.body.data, erp };
    await new Promise((r) => setTimeout(r, 200));
  }
}

const statuses = (r: HomologationReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
const ALL_PASS = { connection: 'pass', catalog: 'pass', order_reception: 'pass', signature_rejection: 'pass', import: 'pass', statuses: 'pass', retries: 'pass' };

describe('observer: the report filled from an ERP\'s own calls', () => {
  it('passes all seven checks for the reference ERP and certifies it', async () => {
    const { report, erp } = await observe('good');
    expect(statuses(report), JSON.stringify(report.checks.filter((c) => c.status !== 'pass'), null, 1)).toEqual(ALL_PASS);
    expect(report.complete).toBe(true);
    expect(report.summary.certified).toBe(true);
    expect(report.mode).toBe('observer');
    expect(erp.errors).toEqual([]);
  }, 30_000);

  it('fails only signature_rejection for an ERP whose receiver skips signature checks', async () => {
    const { report } = await observe('skips_signatures');
    expect(statuses(report)).toEqual({ ...ALL_PASS, signature_rejection: 'fail' });
    const check = report.checks.find((c) => c.id === 'signature_rejection')!;
    expect(check.reason).toMatch(/bad signature/);
    expect(report.summary.certified).toBe(false);
  }, 30_000);

  it('fails only retries for an ERP that sends a new Idempotency-Key on each retry', async () => {
    const { report } = await observe('new_key_per_retry');
    expect(statuses(report)).toEqual({ ...ALL_PASS, retries: 'fail' });
    expect(report.checks.find((c) => c.id === 'retries')!.reason).toMatch(/another Idempotency-Key/);
  }, 30_000);

  it('fails only signature_rejection for an ERP that applies an older order version that arrives late', async () => {
    const { report } = await observe('applies_older_versions');
    expect(statuses(report)).toEqual({ ...ALL_PASS, signature_rejection: 'fail' });
    const evidence = report.checks.find((c) => c.id === 'signature_rejection')!.evidence;
    expect(evidence.find((e) => e.step.includes('older version'))!.actual).toMatch(/acted on the older version/);
  }, 30_000);

  it('fails only import for an ERP that never acknowledges', async () => {
    const { report } = await observe('never_acks', 6);
    // Undecided items fail when the session's time is up; import is the one the ERP never completes.
    expect(statuses(report)).toEqual({ ...ALL_PASS, import: 'fail' });
  }, 30_000);
});
