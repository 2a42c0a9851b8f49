import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveTasks, startReferenceErp, type ErpOptions, type ReferenceErp, type TaskDriver } from '../helpers/reference-erp.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { HomologationReport } from '../../checks/report.js';
import { ROOT } from '../helpers/cli.js';
import { runBuild } from '../helpers/run-build.js';
import { emulatorSlots, type StoreTarget } from '../helpers/erps/observe.js';

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'docs', 'homologation-report.schema.json'), 'utf8')));

// Each session on a store of its own, six at a time, each in an emulator process of its own (the
// built CLI, system clock; one session per process at a time, as the zoo runs them): a session
// mostly waits (the observer's settle window, Retry-After, a deadline), so the file's sessions
// overlap their waits; the ERPs and their drivers run here. Six: the two sessions that run out their
// deadline hold two of them meanwhile.
const emulators = emulatorSlots(6);

beforeAll(runBuild);
afterAll(() => emulators.close());

interface Run extends ErpOptions {
  /** A person (here a driver) does the published tasks (default true). */
  tasksDone?: boolean;
  /**
   * The session's timeout, for a test whose verdict is certain only at the deadline. Without it the
   * session's timeout is long (it ends by itself as soon as every verdict is certain: a deadline
   * would only race a loaded machine) and the test allows BUDGET_SECONDS.
   */
  timeoutSeconds?: number;
  /** This run's time to its complete report is the file's pace (deadlineAfterPace). */
  pace?: boolean;
}

/** Longest a session that ends by itself may take here (vitest's limit is above it): it bounds a hang. */
const BUDGET_SECONDS = 100;

/**
 * How long the reference ERP's session took in this run (the file's first test), from its start to
 * its complete report: what a session's probes, retries and tasks take on this machine now.
 */
let resolvePace!: (seconds: number) => void;
const pace = new Promise<number>((r) => (resolvePace = r));

/**
 * A deadline for a session whose verdict is certain only at it, and which must see the probes,
 * retries and tasks done first: `seconds`, or more on a machine where those take longer (twice what
 * they took in the reference ERP's session, plus 2 s). It waits for that session's figure.
 */
async function deadlineAfterPace(seconds: number): Promise<number> {
  return Math.max(seconds, Math.ceil(2 * (await pace) + 2));
}

/**
 * Starts the ERP, a session for its integration and (unless told) the task driver; polls the report
 * until complete. The ERP and the driver are stopped before it returns (their errors are kept).
 */
async function observe(run: Run = {}): Promise<{ report: HomologationReport; erp: ReferenceErp; driver?: TaskDriver }> {
  const session = async ({ emu, integrationId: id, credential }: StoreTarget) => {
    const erp = await startReferenceErp(emu.ready.sandbox_base_url, credential, run);
    const begun = Date.now();
    let driver: TaskDriver | undefined;
    try {
      const started = await emu.control('POST', `/homologation/${id}/start`, { timeout_seconds: run.timeoutSeconds ?? 600 });
      expect(started.status).toBe(201);
      // A person at the screens (the zoo's reads every 500 ms): each read is a full grading in the emulator.
      if (run.tasksDone !== false) driver = driveTasks(emu.ready.admin_url, id, erp.operator, 500);
      const until = Date.now() + (run.timeoutSeconds ? run.timeoutSeconds + 5 : BUDGET_SECONDS) * 1000;
      for (;;) {
        const res = await emu.control<{ data: HomologationReport }>('GET', `/homologation/${id}`);
        // Every answer, decided or not, is in the report's JSON schema.
        expect(validate(res.body.data), JSON.stringify(validate.errors)).toBe(true);
        const report = res.body.data;
        if (report.complete && run.pace) resolvePace((Date.parse(report.generated_at) - Date.parse(report.started_at)) / 1000);
        if (report.complete || Date.now() > until) return { report, erp, driver };
        await new Promise((r) => setTimeout(r, 500));
      }
    } finally {
      // A session that did not complete still tells how slow the machine is (its own test fails).
      if (run.pace) resolvePace((Date.now() - begun) / 1000);
      await driver?.stop();
      await erp.close();
    }
  };
  // A session that runs out its deadline takes the next free emulator, ahead of those that end by themselves.
  return emulators.use(`observer ${run.variant ?? 'good'}`, session, run.timeoutSeconds !== undefined);
}

const statuses = (r: HomologationReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
const ALL_PASS = { connection: 'pass', catalog: 'pass', order_reception: 'pass', signature_rejection: 'pass', import: 'pass', import_recovery: 'pass', statuses: 'pass', retries: 'pass' };
const notPassed = (r: HomologationReport) => JSON.stringify(r.checks.filter((c) => c.status !== 'pass'), null, 1);
const actions = (r: HomologationReport) => r.tasks.map((t) => `${t.action}:${t.status}`).sort();

describe.concurrent('observer: a spec-following ERP with a person doing the tasks is certified', () => {
  it('certifies the reference ERP: every check passes, every task is done', async () => {
    const { report, erp, driver } = await observe({ pace: true });
    expect(statuses(report), notPassed(report)).toEqual(ALL_PASS);
    expect(report).toMatchObject({ complete: true, mode: 'observer', summary: { certified: true } });
    expect(actions(report)).toEqual(['cancel_order:done', 'import_after_failure:done', 'reject_order:done']);
    for (const t of report.tasks) expect(t.instruction).toMatch(/order #\d+ \(ord_[0-9A-Z]{26}\)/);
    expect(erp.errors).toEqual([]);
    expect(driver!.errors).toEqual([]);
  });

  it.each([
    ['only batch operations (a full snapshot, patch_product)', 'batch'],
    ['only the single endpoints (no snapshot)', 'single'],
  ] as const)('certifies an ERP that publishes with %s, asked to mark a product sold out', async (_name, publish) => {
    const { report, erp } = await observe({ publish });
    expect(statuses(report), notPassed(report)).toEqual(ALL_PASS);
    expect(report.summary.certified).toBe(true);
    // The first product it published (a batch makes them in the same millisecond: insertion order decides).
    const soldOut = report.tasks.find((t) => t.action === 'mark_unavailable')!;
    expect(soldOut).toMatchObject({ external_id: 'erp-classic', status: 'done' });
    expect(soldOut.reason).toMatch(publish === 'batch' ? /^marked sold out: POST \/catalog\/batch/ : /^marked sold out: PATCH \/catalog\/products\/erp-classic/);
    expect(erp.errors).toEqual([]);
  });

  it('certifies the reference ERP in 10 more observed runs (no flake)', async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, () => observe()));
    for (const [i, { report, erp }] of runs.entries()) {
      expect(report.summary.certified, `run ${i + 1}: ${notPassed(report)}`).toBe(true);
      expect(erp.errors, `run ${i + 1}`).toEqual([]);
    }
  }, 600_000);
});

describe.concurrent('observer: each broken ERP fails exactly its check', () => {
  it('fails only import for an ERP that never acknowledges (nothing reported, so nothing to recover)', async () => {
    const { report } = await observe({ variant: 'never_acks', timeoutSeconds: await deadlineAfterPace(6) });
    expect(statuses(report)).toEqual({ ...ALL_PASS, import: 'fail', import_recovery: 'skip' });
    expect(report.checks.find((c) => c.id === 'import')!.reason).toBe('missing: ack; import-failure (an order the ERP cannot import)');
    // vitest's limit only bounds a hang: the deadline grows with the machine's pace.
  }, 600_000);

  it('fails statuses when nobody does the tasks, naming the tasks still open (and the optional import_recovery)', async () => {
    const { report } = await observe({ tasksDone: false, timeoutSeconds: await deadlineAfterPace(8) });
    expect(statuses(report)).toEqual({ ...ALL_PASS, statuses: 'fail', import_recovery: 'fail' });
    expect(report.summary.certified).toBe(false);
    const open = report.tasks.filter((t) => t.status === 'open');
    expect(open.map((t) => t.action).sort()).toEqual(['cancel_order', 'import_after_failure', 'reject_order']);
    const reason = report.checks.find((c) => c.id === 'statuses')!.reason;
    for (const t of open.filter((x) => x.action !== 'import_after_failure')) expect(reason).toContain(`${t.id} ${t.action} (${t.order_id})`);
  }, 600_000);

  it('fails only signature_rejection for an ERP whose receiver skips signature checks', async () => {
    const { report } = await observe({ variant: 'skips_signatures' });
    expect(statuses(report)).toEqual({ ...ALL_PASS, signature_rejection: 'fail' });
    expect(report.checks.find((c) => c.id === 'signature_rejection')!.reason).toMatch(/bad signature/);
    expect(report.summary.certified).toBe(false);
  });

  it('fails only retries for an ERP that sends a new Idempotency-Key on each retry', async () => {
    const { report } = await observe({ variant: 'new_key_per_retry' });
    expect(statuses(report)).toEqual({ ...ALL_PASS, retries: 'fail' });
    expect(report.checks.find((c) => c.id === 'retries')!.reason).toMatch(/another Idempotency-Key/);
  });

  it('fails only signature_rejection for an ERP that applies an older order version that arrives late', async () => {
    const { report } = await observe({ variant: 'applies_older_versions' });
    expect(statuses(report)).toEqual({ ...ALL_PASS, signature_rejection: 'fail' });
    const evidence = report.checks.find((c) => c.id === 'signature_rejection')!.evidence;
    expect(evidence.find((e) => e.step.includes('older version'))!.actual).toMatch(/imported the older version again/);
  });

  it('fails only statuses for an ERP that repeats a refused status move, naming the call', async () => {
    const { report } = await observe({ variant: 'repeats_refused_move' });
    expect(statuses(report)).toEqual({ ...ALL_PASS, statuses: 'fail' });
    expect(report.checks.find((c) => c.id === 'statuses')!.reason).toMatch(/^POST \/orders\/ord_\w+\/status \(req_\w+\) repeated a status move refused with 409 invalid_status_transition \(req_\w+\) unchanged/);
  });
});
