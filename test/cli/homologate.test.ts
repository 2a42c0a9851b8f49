import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { filesIn, homologationScratch, runToEnd, type CliResult } from '../helpers/homologation.js';

const IDS = ['connection', 'catalog', 'order_reception', 'signature_rejection', 'import', 'statuses', 'retries'];

let emu: TestEmulator;
let scratch: ReturnType<typeof homologationScratch>;
let run: CliResult;

beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator();
  scratch = homologationScratch();
  run = await runToEnd(['homologate', '--report-dir', scratch.reports], {
    ...scratch.env,
    MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url,
    MERCHANT_KIT_CREDENTIAL: emu.test.credential,
  });
}, 180_000);
afterAll(() => emu?.close());

const report = () => JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));

describe('homologate against a fresh emulator', () => {
  it('passes all seven checks, exits 0 and takes under 10 s', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.ms).toBeLessThan(10_000);
    for (const id of IDS) expect(run.stdout).toMatch(new RegExp(`PASS\\s+${id}\\s`));
    expect(run.stdout).toContain('Certified: 7/7 checks passed.');
  });

  it('writes the four report files', () => {
    const names = filesIn(scratch.reports).map((f) => f.path.split(/[\\/]/).pop()).sort();
    expect(names).toEqual(['homologation.html', 'homologation.json', 'homologation.junit.xml', 'homologation.md']);
  });

  it('writes a JSON report that validates against docs/homologation-report.schema.json', () => {
    const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'homologation-report.schema.json'), 'utf8'));
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    const r = report();
    expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
    expect(r.schema_version).toBe('1.0');
    expect(r.mode).toBe('automatic');
    expect(r.summary).toMatchObject({ total: 7, passed: 7, certified: true });
    expect(r.checks.map((c: { id: string }) => c.id)).toEqual(IDS);
    expect(r.integration.id).toBe(emu.test.integration_id);
    // Evidence carries the API's request ids and statuses.
    const connection = r.checks[0];
    expect(connection.evidence[0]).toMatchObject({ method: 'GET', status: 200, request_id: expect.stringMatching(/^req_/) });
    // A schema that accepted anything would pass the lines above: a broken report must fail it.
    expect(validate({ ...r, checks: [{ ...r.checks[0], status: 'maybe' }] })).toBe(false);
  });

  it('writes JUnit XML with one testsuite per area and a testcase per check id', () => {
    const xml = readFileSync(join(scratch.reports, 'homologation.junit.xml'), 'utf8');
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    const suites = [parsed.testsuites.testsuite].flat();
    expect(suites.map((s: { name: string }) => s.name)).toEqual(['homologation.setup', 'homologation.catalog', 'homologation.orders', 'homologation.webhooks', 'homologation.resilience']);
    const cases = suites.flatMap((s: { testcase: unknown }) => [s.testcase].flat()) as { classname: string; failure?: unknown }[];
    expect(cases.map((c) => c.classname.split('.').pop()).sort()).toEqual([...IDS].sort());
    expect(cases.every((c) => c.failure === undefined)).toBe(true);
    expect(parsed.testsuites).toMatchObject({ tests: '7', failures: '0' });
  });

  it('writes a Markdown summary with a row per check and the verdict', () => {
    const md = readFileSync(join(scratch.reports, 'homologation.md'), 'utf8');
    expect(md).toContain('**Certified**');
    for (const id of IDS) expect(md).toMatch(new RegExp(`\\| ✅ \\| \`${id}\``));
  });

  it('never writes the credential or a signing secret into a report or the output', () => {
    const secretPart = emu.test.credential.split('.')[1]!;
    const texts = [...filesIn(scratch.reports).map((f) => f.text), run.stdout, run.stderr];
    expect(texts.length).toBe(6);
    for (const text of texts) {
      expect(text).not.toContain(secretPart);
      expect(text).not.toContain(emu.test.credential);
      expect(text).not.toMatch(/svs_(test|live)_[A-Za-z0-9]{8,}/);
      expect(text).not.toMatch(/whsec_[A-Za-z0-9_-]{8,}/);
    }
  });

  it('puts the webhook back as it was (none: left inactive) after the run', async () => {
    const webhook = await emu.api('GET', '/webhook');
    expect(webhook.status).toBe(200);
    expect(webhook.body.data.active).toBe(false);
  });
});
