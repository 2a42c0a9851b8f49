import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import { ROOT } from '../cli.js';
import { runBuild } from '../run-build.js';
import type { ReadyInfo } from '../../../emulator/server.js';
import type { HomologationReport } from '../../../checks/report.js';
import type { Variant } from './zoo.js';
import { request } from '../http.js';

export interface Observed {
  report: HomologationReport;
  /** Unexpected errors of the ERP's own work, and of its person's (a correct ERP has none). */
  errors: string[];
  personErrors: string[];
  /** Real seconds from the session's start to its complete report. */
  seconds: number;
  /** When the report is not complete: the API writes the emulator answered, as text (for the failure message). */
  writes: string[];
}

/** The emulator's request log of one integration's API writes, oldest first: "POST /sandbox/v1/orders/ord_…/ack 503 maintenance (req_…)". */
async function requestLog(emu: EmulatorProcess, integrationId: string): Promise<string[]> {
  const page = await emu.control<{ data: { entries: { method: string; path: string; status: number; error_code: string | null; request_id: string; time: string; integration_id: string | null }[] } }>('GET', '/logs?tail=500');
  return page.body.data.entries.filter((e) => e.integration_id === integrationId && e.method !== 'GET' && !e.path.startsWith('/_emulator')).map((e) => `${e.time.slice(11, 23)} ${e.method} ${e.path} ${e.status}${e.error_code ? ` ${e.error_code}` : ''} (${e.request_id})`);
}

let bundled: Promise<string> | null = null;

/** The zoo's worker entry, bundled once per test process (beside node_modules, where its packages resolve). */
function workerFile(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import('esbuild');
    const dir = join(ROOT, 'node_modules', '.cache', 'merchant-kit-zoo');
    mkdirSync(dir, { recursive: true });
    const outfile = join(dir, `erp-worker-${process.pid}.mjs`);
    await build({ entryPoints: [join(ROOT, 'test', 'helpers', 'erps', 'worker-entry.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, packages: 'external', logLevel: 'silent' });
    process.once('exit', () => rmSync(outfile, { force: true }));
    return outfile;
  })();
  return bundled;
}

interface ErpThread {
  /** Tells the ERP's thread the session started: its person starts working, and what happens to it meanwhile. */
  sessionStarted(): void;
  close(): Promise<{ errors: string[]; personErrors: string[] }>;
}

/** An emulator in a process of its own (the built CLI's `emulator start`), as the zoo's ERPs meet one. */
export interface EmulatorProcess {
  ready: ReadyInfo;
  test: ReadyInfo['stores'][number];
  control<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/** `storage`: the emulator's storage options (default `--memory`; `--database-url …` for PostgreSQL). */
export async function startEmulatorProcess(storage: string[] = ['--memory']): Promise<EmulatorProcess> {
  // The run's copy of the built CLI (helpers/run-build.ts): a rebuild of dist/ during the run cannot
  // pull its chunks from under a running session.
  const bin = join(await runBuild(), 'bin', 'merchant-kit.js');
  const child = spawn(process.execPath, [bin, 'emulator', 'start', '--json', '--port', '0', ...storage], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const firstLine = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    void exited.then(() => reject(new Error(`emulator start exited before its ready line; stderr: ${stderr}`)));
  });
  let ready: ReadyInfo;
  try {
    ready = JSON.parse(await firstLine) as ReadyInfo;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    ready,
    test: ready.stores.find((s) => s.environment === 'test')!,
    async control(method, path, body) {
      const res = await request(`${ready.admin_url}${path}`, method, { body, headers: { 'content-type': 'application/json' } });
      return { status: res.status, body: res.body as never };
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Threads for zoo ERPs, each serving one ERP after another (worker-entry.ts): a thread whose ERP
 * closed cleanly is handed to the next session; one that failed is terminated. `close()` terminates
 * the idle ones (a test process runs other files after this one).
 */
class ErpThreads {
  private readonly idle: Worker[] = [];

  async take(): Promise<Worker> {
    const reused = this.idle.pop();
    if (reused) return reused;
    const worker = new Worker(await workerFile());
    // A thread that dies while idle is dropped (a session's own listener reports one that dies in use).
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    });
    return worker;
  }

  give(worker: Worker): void {
    this.idle.push(worker);
  }

  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }
}

/** A zoo ERP in a thread of `threads` (test/helpers/erps/worker-entry.ts), ready once it connected and published. */
async function startErpThread(v: Variant, { emu, credential, integrationId }: StoreTarget, threads: ErpThreads): Promise<ErpThread> {
  const worker = await threads.take();
  const next = (type: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const onMessage = (m: Record<string, unknown>) => {
        if (m.type === 'failed') reject(new Error(String(m.error)));
        else if (m.type === type) resolve(m);
        else return;
        worker.off('message', onMessage);
        worker.off('error', reject);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  const ready = next('ready');
  worker.postMessage({ type: 'start', variant: v.name, baseUrl: emu.ready.sandbox_base_url, credential, adminUrl: emu.ready.admin_url, integrationId });
  try {
    await ready;
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  let closing: Promise<{ errors: string[]; personErrors: string[] }> | undefined;
  return {
    sessionStarted: () => worker.postMessage({ type: 'session' }),
    close() {
      closing ??= (async () => {
        const closed = next('closed');
        worker.postMessage({ type: 'close' });
        try {
          const m = await closed;
          threads.give(worker);
          return { errors: m.errors as string[], personErrors: m.personErrors as string[] };
        } catch (error) {
          await worker.terminate();
          throw error;
        }
      })();
      return closing;
    },
  };
}

/**
 * One observed session of a zoo ERP, as the zoo that graded the observer runs one: an emulator in a
 * process of its own (the built CLI, system clock, real HTTP), the ERP and its person in a thread of
 * their own; the settings set in the panel, the ERP started (it connects and publishes), the session
 * started with a long timeout, the person doing the tasks; the report polled until it is complete or
 * `budgetSeconds` pass. Everything is closed before it returns. Needs the run's build (`runBuild`).
 * `storage`: the emulator's storage options (a fresh PostgreSQL database per session: processes on
 * one database are one sandbox, and the seeded store's webhook would outlive the session).
 */
export async function observeVariant(v: Variant, storage?: string[]): Promise<Observed> {
  const emu = await startEmulatorProcess(storage);
  const threads = new ErpThreads();
  try {
    return await observeOn({ emu, integrationId: emu.test.integration_id, credential: emu.test.credential }, v, threads);
  } finally {
    await threads.close();
    await emu.close();
  }
}

/** Where a session runs: the emulator and the integration (with its credential) of the ERP under test, a store of its own. */
export interface StoreTarget {
  emu: EmulatorProcess;
  integrationId: string;
  credential: string;
}

/**
 * Work `n` at a time, each on a store of its own (`POST /_emulator/stores`: its own integration,
 * credential, webhook, catalog and orders) in one of `n` emulator processes, one per slot, started
 * when first needed and reused: a session sees what it would see on a fresh emulator (one session per
 * process at a time), without paying for a process start, and no two sessions share an event loop
 * (the observer's retry timing reads the emulator's). `close()` stops the processes.
 */
export function emulatorSlots(n: number): { use<T>(name: string, work: (target: StoreTarget) => Promise<T>, first?: boolean): Promise<T>; close(): Promise<void> } {
  const limit = slots(n);
  const idle: EmulatorProcess[] = [];
  const started: Promise<EmulatorProcess>[] = [];
  return {
    use: (name, work, first) =>
      limit(async () => {
        const emu = idle.pop() ?? (await (started[started.length] = startEmulatorProcess()));
        let healthy = false;
        try {
          const made = await emu.control<{ data: { integration: { id: string }; credential: string } }>('POST', '/stores', { environment: 'test', name: name.slice(0, 60) });
          if (made.status !== 201) throw new Error(`POST /_emulator/stores: ${made.status} ${JSON.stringify(made.body)}`);
          const result = await work({ emu, integrationId: made.body.data.integration.id, credential: made.body.data.credential });
          healthy = true;
          return result;
        } finally {
          // An emulator that failed a session is not handed to the next one.
          if (healthy) idle.push(emu);
          else await emu.close();
        }
      }, first),
    async close() {
      await Promise.all(started.map((p) => p.then((e) => e.close(), () => undefined)));
    },
  };
}

/** Zoo sessions `n` at a time on `emulatorSlots(n)`, their ERPs in threads reused from one session to the next. */
export function sharedEmulators(n: number): { observe(v: Variant): Promise<Observed>; close(): Promise<void> } {
  const emulators = emulatorSlots(n);
  const threads = new ErpThreads();
  return {
    observe: (v) => emulators.use(`zoo ${v.name}`, (target) => observeOn(target, v, threads)),
    async close() {
      await threads.close();
      await emulators.close();
    },
  };
}

async function observeOn(target: StoreTarget, v: Variant, threads: ErpThreads, timeoutSeconds = v.sessionTimeoutSeconds ?? 600): Promise<Observed> {
  const { emu, integrationId: id } = target;
  let erp: ErpThread | undefined;
  try {
    if (v.settings) await emu.control('PATCH', `/integrations/${id}`, { settings: v.settings });
    erp = await startErpThread(v, target, threads);
    const started = Date.now();
    const start = await emu.control('POST', `/homologation/${id}/start`, { timeout_seconds: timeoutSeconds });
    if (start.status !== 201) throw new Error(`session start: ${start.status} ${JSON.stringify(start.body)}`);
    erp.sessionStarted();
    const until = started + (v.budgetSeconds ?? 60) * 1000;
    let report: HomologationReport;
    for (;;) {
      report = (await emu.control<{ data: HomologationReport }>('GET', `/homologation/${id}`)).body.data;
      if (report.complete || Date.now() > until) break;
      // Each read grades every check in the emulator's loop, which must stay free to time the ERP's
      // retries (the session ends itself as soon as its verdict is certain; its report stays as it was then).
      await new Promise((r) => setTimeout(r, 1000));
    }
    const seconds = (Date.now() - started) / 1000;
    const { errors, personErrors } = await erp.close();
    erp = undefined;
    // An incomplete session's failure message gets the ERP's writes as the emulator answered them.
    const writes = report.complete ? [] : await requestLog(emu, id);
    return { report, errors, personErrors, seconds, writes };
  } finally {
    await erp?.close().catch(() => undefined);
  }
}

export const verdicts = (r: HomologationReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));

/** What did not pass, for a failing assertion's message: each such check, its reason and its evidence, the tasks and notes. */
export function notPassed(r: HomologationReport): string {
  const lines = [`complete ${r.complete}, intake ${r.intake}, notes: ${r.notes.join(' | ')}`];
  for (const c of r.checks.filter((x) => x.status !== 'pass')) {
    lines.push(`${c.id} ${c.status}: ${c.reason}`);
    for (const e of c.evidence) lines.push(`    ${e.ok ? 'ok' : 'x '} ${e.step}: ${e.actual ?? e.status ?? ''}`);
  }
  for (const t of r.tasks) lines.push(`task ${t.id} ${t.action} ${t.status}: ${t.reason ?? t.instruction}`);
  return lines.join('\n');
}

/**
 * At most `n` sessions at a time (a test file's concurrent tests share one event loop: a loop kept
 * busy by many sessions reads requests late, which is what the observer must not be graded on).
 * `first`: this work waits ahead of the others (a session that must run out its deadline, which the
 * file should not wait for at its end).
 */
export function slots(n: number): <T>(work: () => Promise<T>, first?: boolean) => Promise<T> {
  let free = n;
  const waiting: (() => void)[] = [];
  return async (work, first = false) => {
    if (free === 0) await new Promise<void>((r) => (first ? waiting.unshift(r) : waiting.push(r)));
    else free--;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}
