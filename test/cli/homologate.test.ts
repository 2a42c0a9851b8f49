import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { filesIn, homologationScratch, runToEnd, type CliResult } from '../helpers/homologation.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { verify } from '../../src/webhooks/sign.js';
import { homologationService } from '../../emulator/homologation/observer-state.js';

const IDS = ['connection', 'catalog', 'order_reception', 'signature_rejection', 'import', 'import_recovery', 'statuses', 'retries'];

let emu: TestEmulator;
let scratch: ReturnType<typeof homologationScratch>;
let run: CliResult;

let developerHook: Receiver;
let developerSecret: string;

beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator();
  // The developer's own integration, as they left it: a webhook to their listener with its secret.
  developerHook = await startReceiver();
  const put = await emu.api('PUT', '/webhook', { body: { url: developerHook.url, events: ['*'] } });
  developerSecret = put.body.data.signing_secret;
  scratch = homologationScratch();
  run = await runToEnd(['homologate', '--report-dir', scratch.reports], {
    ...scratch.env,
    MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url,
    MERCHANT_KIT_CREDENTIAL: emu.test.credential,
  });
});
afterAll(async () => {
  await developerHook?.close();
  await emu?.close();
});

const report = () => JSON.parse(readFileSync(join(scratch.reports, 'homologation.json'), 'utf8'));

describe('homologate against a fresh emulator', () => {
  // How long a run takes is bench/homologation.mjs's figure, not a test's: a loaded machine took 12 s.
  it('passes every check and exits 0', () => {
    expect(run.code, run.stderr).toBe(0);
    for (const id of IDS) expect(run.stdout).toMatch(new RegExp(`PASS\\s+${id}\\s`));
    // DESIGN: a certificate is only for an observed ERP; this run is the reference integrator's.
    expect(run.stdout).toContain('Reference run passed: 8/8 checks passed.');
    expect(run.stdout).not.toMatch(/Certified/);
  });

  // issue 27: under CI, stderr's progress lines and stdout's summary each listed every check.
  it('under CI prints every check once in the one log that holds stdout and stderr', () => {
    const log = `${run.stdout}\n${run.stderr}`;
    for (const id of IDS) expect(log.match(new RegExp(`^PASS\\s+${id}\\s`, 'gm')), id).toHaveLength(1);
  });

  it('a --report-dir that is a file is a usage error naming it, before the run (not EEXIST)', async () => {
    const file = join(scratch.dir, 'not-a-folder');
    writeFileSync(file, '');
    for (const dir of [file, join(file, 'reports')]) {
      const r = await runToEnd(['homologate', '--report-dir', dir], { ...scratch.env, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: emu.test.credential });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`error: --report-dir ${dir} is a file, or inside one: name a folder for the reports (it is made when missing)\n`);
    }
  });

  it('says plainly that merchant-kit\'s reference integrator passed, not the user\'s ERP', () => {
    expect(run.stdout).toContain("Run by merchant-kit's reference integrator, not your ERP (only an observed run, homologate --observe, certifies an ERP).");
    const md = readFileSync(join(scratch.reports, 'homologation.md'), 'utf8');
    expect(md).toContain("Run by merchant-kit's reference integrator, not your ERP");
    expect(report().notes.join(' ')).toMatch(/ran on a store and integration of its own, made for this run/);
  });

  // DESIGN: a certificate is issued for an observed session only, never for the automatic reference run.
  it('earns no certificate from the sandbox: the report carries none, the ledger stays empty', async () => {
    expect(report().certificate).toBeUndefined();
    expect((await emu.control('GET', '/certificates')).body.data).toEqual([]);
    expect(readFileSync(join(scratch.reports, 'homologation.html'), 'utf8')).not.toContain('How to verify this certificate');
  });

  it('suspends its own store when the run ends, so that the panel\'s store selector leaves it out', async () => {
    const state = (await emu.control('GET', '/state')).body.data;
    const stores = state.environments.find((e: { name: string }) => e.name === 'test').stores as { id: string; slug: string; suspended: boolean }[];
    const own = stores.find((s) => s.id === report().integration.store_id)!;
    expect(own).toMatchObject({ suspended: true, slug: expect.stringMatching(/^merchant-kit-homologation-[0-9a-f]{6}$/) });
    expect(stores.find((s) => s.id === emu.test.store_id)!.suspended).toBe(false);
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
    expect(r.schema_version).toBe('1.2');
    expect(r.mode).toBe('automatic');
    expect(r.summary).toMatchObject({ total: 8, passed: 8, certified: true });
    expect(r.checks.map((c: { id: string }) => c.id)).toEqual(IDS);
    expect(r.tasks).toEqual([]);
    // The reference integrator's own integration and store, never the developer's.
    expect(r.integration.id).toMatch(/^int_/);
    expect(r.integration.id).not.toBe(emu.test.integration_id);
    expect(r.integration.store_id).not.toBe(emu.test.store_id);
    expect(r.integration.store_name).toMatch(/^merchant-kit homologation [0-9a-f]{6}$/);
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
    expect(parsed.testsuites).toMatchObject({ tests: '8', failures: '0' });
  });

  it('writes a Markdown summary with a row per check and the verdict', () => {
    const md = readFileSync(join(scratch.reports, 'homologation.md'), 'utf8');
    expect(md).toContain('**Reference run passed**: 8/8 checks passed.');
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

  it('leaves the developer\'s integration untouched: same webhook and secret, no orders, no catalog items, no recorded calls', async () => {
    const webhook = await emu.api('GET', '/webhook');
    expect(webhook.body.data).toMatchObject({ url: developerHook.url, active: true });
    // Nothing of the run reached the developer's listener, and a delivery now is signed with the
    // secret it knew (not rotated: one v1 entry, verified with it).
    expect(developerHook.received).toEqual([]);
    expect((await emu.api('POST', '/webhook/test')).status).toBe(202);
    await emu.control('POST', '/webhooks/drain', {});
    const [delivery] = await developerHook.waitFor(1);
    const signature = String(delivery!.headers['x-service-signature']);
    expect(signature.split(',').filter((p) => p.trim().startsWith('v1='))).toHaveLength(1);
    expect(verify({ signature, timestamp: String(delivery!.headers['x-service-timestamp']), rawBody: Buffer.from(delivery!.body), secrets: [developerSecret] }).ok).toBe(true);
    expect((await emu.api('GET', '/orders')).body.data).toEqual([]);
    const products = (await emu.api('GET', '/catalog/products')).body.data as { external_id: string | null }[];
    expect(products.filter((p) => p.external_id?.startsWith('mkh-'))).toEqual([]);
    // A later observer of the developer's integration sees only the developer's own calls.
    const observed = (await emu.control('GET', `/homologation/${emu.test.integration_id}`)).body.data;
    const own = await homologationService(emu.running.emulator).store.calls(emu.test.integration_id);
    expect(own.map((c) => `${c.method} ${c.path}`)).toEqual(['PUT /webhook', 'GET /webhook', 'POST /webhook/test', 'GET /orders', 'GET /catalog/products']);
    expect(observed.checks.find((c: { id: string }) => c.id === 'catalog').status).toBe('pending');
  });
});
