import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { runBuild } from '../helpers/run-build.js';
import { freePort } from '../helpers/ports.js';
import { loadDeadline, loadFactor, loadTimer } from '../helpers/wait.js';
import {
  adaptBlock, adaptNginx, adaptPublicUrl, BLOCK_MARK, credentialFiles, describeEnd, DOCUMENTED_PORTS, FILTERS, filterShim, lastBlock, MarkerClock, needsPostgres, nginxBlock,
  PROBE_ENV, PROBE_PROLOGUE, SESSION_ENV, sessionProcesses, sessionScript, shellBlocks, terminalReasons, terminalText, type SessionMode, type SessionProcess, type Stop, type Target,
} from '../helpers/docs.js';
import { createTestDatabase, PG_URL } from '../helpers/postgres.js';

// issue 10, item 9: every command of the docs works when copy-pasted in order.
//
// The convention (docs/contributing.md):
// - blocks fenced ```sh are run; blocks fenced ```console, ```text, ```json, ```bash-norun (or any
//   other info string), and blocks whose previous non-blank line is `<!-- not-run -->`, are not run
//   (long-running commands such as `listen`, interactive prompts, output samples);
// - the blocks of one file run in order in one bash session (`set -eo pipefail`) in a scratch
//   folder, against a fresh emulator of their own (the built package's, as `emulator start --port 0
//   --memory --json` starts it, in the test's process);
// - `127.0.0.1:4010` and `localhost:4010` become that emulator's address, `svk_test_….svs_test_…`
//   and `svk_live_….svs_live_…` its seeded credentials; `merchant-kit` and `npx merchant-kit` run the
//   repo's built bin (a private copy of it); lines that are `npm install`, `npm ci`, `npm start`,
//   `npm test` are skipped; `curl` fails on answers of 400 or more (`--fail-with-body`);
// - a block that fails fails the test with the file, the block's line and its output;
// - (issue 14) each file runs twice: once as a script (stdin not a terminal, output to pipes), once
//   pasted into a pseudo-terminal (test/helpers/terminal-session.py), where every command sees a
//   terminal on stdin, stdout and stderr and the lines pasted after it wait on its stdin, as when a
//   reader pastes a block. A command that reads them (a spinner that discards stdin) fails the file.
// - (issue 17) a file marked `<!-- docs-runner: postgres -->` (docs/team-sandbox.md) starts its own
//   team sandbox: no emulator is started for it; it gets a fresh database on the server of
//   MERCHANT_KIT_TEST_DATABASE_URL in place of `postgres://merchant_kit@127.0.0.1:5432/merchant_kit`,
//   and a free port for each of 4010–4013 (in an address or after `--port`). Whatever its blocks
//   started must be stopped by its blocks (by the ready lines' pids): a process left running fails
//   it. Without the variable it is skipped locally, with a line saying why; on CI it never is.
// - (issue 26) such a doc's nginx configuration, a block after `<!-- docs-runner: nginx -->`, runs:
//   the runner makes a TLS certificate (openssl) and starts Debian's nginx with that configuration on a
//   free loopback port (adaptNginx: the certificate, the processes' ports, a main configuration of its
//   own), for the whole session; `https://sandbox.example.com` in the blocks becomes its address, and
//   the CLI and curl trust the certificate (NODE_EXTRA_CA_CERTS, CURL_CA_BUNDLE).

const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
].filter((f) => shellBlocks(readFileSync(join(ROOT, f), 'utf8')).length > 0);

/** The files that start a team sandbox of their own on PostgreSQL. */
const POSTGRES_FILES = FILES.filter((f) => needsPostgres(readFileSync(join(ROOT, f), 'utf8')));
/** Without a test server they are skipped (locally only: on CI, helpers/postgres.ts fails the run). */
const RUNNABLE = PG_URL ? FILES : FILES.filter((f) => !POSTGRES_FILES.includes(f));
const SKIPPED = FILES.filter((f) => !RUNNABLE.includes(f));

/**
 * How many sessions run at once (issue 27): each runs its commands one after another, about a core's
 * work, next to the other test files of the run. Started all at once on two busy cores, 26 emulators
 * missed their start-up limit. The rest wait their turn in `sessions`, in the order they asked, holding
 * no place while they wait for anything else (a terminal run for its script run): vitest starts every
 * test of the file at once, each limited as the whole file could take (SESSION_QUEUE_MS).
 */
const CONCURRENCY = Math.max(1, Math.min(2, availableParallelism()));
vi.setConfig({ maxConcurrency: 1_000 });
// The worker runs other files after this one (vitest.config.ts: isolate false).
afterAll(() => vi.resetConfig());

/** Runs `run` once fewer than CONCURRENCY sessions run, in the order asked. */
const sessions = (() => {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (active < CONCURRENCY) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await run();
    } finally {
      // The place goes to the next in line, or is given back.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
})();

/** How long a file's sessions take, roughly: the lines of its blocks (most are commands). */
const weight = (file: string) => shellBlocks(readFileSync(join(ROOT, file), 'utf8')).reduce((n, b) => n + b.code.split('\n').length, 0);
/**
 * The team sandbox docs first (their script run then their terminal run, a homologation each: the
 * longest chain of the file), then the longest.
 */
const LONGEST_FIRST = [...RUNNABLE].sort((a, b) => Number(POSTGRES_FILES.includes(b)) - Number(POSTGRES_FILES.includes(a)) || weight(b) - weight(a));
if (SKIPPED.length > 0) {
  console.warn(`docs runner: ${SKIPPED.join(', ')} skipped: it starts a team sandbox on PostgreSQL; set MERCHANT_KIT_TEST_DATABASE_URL to a server where the tests may create databases`);
}

/**
 * Time limits (issue 18), sized from measured times with a wide margin: on a slow, busy 2-core
 * machine (a busy loop on one core) the slowest file, docs/cli.md, took 48 s and its slowest block
 * under 15 s. A block that makes no progress for BLOCK_TIMEOUT_MS is stopped; a whole file gets
 * FILE_TIMEOUT_MS. Both only bound a hang: a healthy run ends long before either, and both grow with
 * the machine's load (helpers/wait.ts).
 */
const BLOCK_TIMEOUT_MS = 120_000;
const FILE_TIMEOUT_MS = 300_000;
/**
 * vitest's limit of a test of this file: its place in `sessions` comes after every session asked
 * before it, each bounded by FILE_TIMEOUT_MS (grown with the load), so only a hang outside the
 * sessions' own limits meets it.
 */
const SESSION_QUEUE_MS = (2 * RUNNABLE.length + 24) * FILE_TIMEOUT_MS;
/** The run's private copy of the built CLI, which the sessions run (helpers/run-build.ts). */
let BIN = '';

interface Emulator {
  target: Target;
  stop: () => void | Promise<void>;
}


/**
 * What a team sandbox doc runs against instead of an emulator: a fresh database (dropped at the end,
 * whatever is still connected to it), a free port for each documented one and, when the doc has an
 * nginx configuration, that nginx in front (startNginx).
 */
async function teamSandbox(markdown: string): Promise<Emulator & { nginx?: Nginx }> {
  const database = await createTestDatabase();
  const ports: Record<number, number> = {};
  const taken = () => [...Object.values(ports)];
  for (const documented of DOCUMENTED_PORTS) {
    let port = await freePort();
    while (taken().includes(port)) port = await freePort();
    ports[documented] = port;
  }
  const config = nginxBlock(markdown);
  let nginx: Nginx | undefined;
  if (config) {
    try {
      nginx = await startNginx(config, ports, taken());
    } catch (error) {
      await database.drop();
      throw error;
    }
  }
  return {
    target: { hostPort: `127.0.0.1:${ports[4010]}`, ports, databaseUrl: database.url },
    nginx,
    stop: async () => {
      await nginx?.stop();
      await database.drop();
    },
  };
}

const NGINX = '/usr/sbin/nginx';

interface Nginx {
  port: number;
  /** The certificate nginx serves, for the session's clients to trust. */
  certificate: string;
  stop(): Promise<void>;
}

/**
 * Debian's nginx with the doc's configuration (adaptNginx), in the foreground of a child of the test,
 * on a free loopback port with a certificate made here for localhost; resolved once it accepts
 * connections. Its folder (pid, logs, temp paths, certificate) is the test's own.
 */
async function startNginx(config: string, ports: Record<number, number>, taken: number[]): Promise<Nginx> {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: a team sandbox doc's nginx configuration runs against Debian's nginx (.ci/run installs it)`);
  const prefix = mkdtempSync(join(tmpdir(), 'merchant-kit-docs-nginx-'));
  const certificate = join(prefix, 'sandbox.crt');
  const key = join(prefix, 'sandbox.key');
  execFileSync('openssl', [
    // An EC key: made in ~10 ms where an RSA one took 0.1–0.4 s of CPU (and blocked this process's loop for up to 1.6 s).
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-keyout', key, '-out', certificate,
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE',
  ], { stdio: 'pipe' });
  let port = await freePort();
  while (taken.includes(port)) port = await freePort();
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(conf, adaptNginx(config, { port, certificate, key, ports, prefix, root: process.getuid?.() === 0 }));
  const child = spawn(NGINX, ['-p', prefix, '-c', conf, '-e', join(prefix, 'error.log'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => `${stderr}${existsSync(join(prefix, 'error.log')) ? readFileSync(join(prefix, 'error.log'), 'utf8') : ''}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(prefix, { recursive: true, force: true });
  };
  // Listening once a connection to its port is accepted (nginx binds before it forks its worker).
  for (const deadline = loadDeadline(); ; ) {
    if (child.exitCode !== null) {
      const why = log();
      rmSync(prefix, { recursive: true, force: true });
      throw new Error(`nginx did not start with the doc's configuration:\n${why}`);
    }
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) return { port, certificate, stop };
    if (deadline.passed()) {
      await stop();
      throw new Error(`nginx did not listen on ${port} in ${(deadline.elapsedMs() / 1000).toFixed(1)} s:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The run's copy of the built package's emulator entry (helpers/run-build.ts), imported once for every session. */
type EmulatorEntry = typeof import('../../emulator/index.js');
let builtEmulator: Promise<EmulatorEntry> | null = null;

/**
 * A fresh emulator of the built package on a free port, in memory, started in this process with the
 * options `emulator start --port 0 --memory --json` gives it (src/cli/commands/emulator/start.ts: the
 * system clock, the limits on, loopback, no token); resolves with its ready line's data (issue 27:
 * the same emulator the CLI's start runs, without a process of its own, which cost ~0.7 s of CPU
 * per session for the CLI's own start). The blocks reach it over real HTTP, as the reader's.
 */
async function startEmulator(): Promise<Emulator> {
  const { startEmulator: start, readyLine } = await (builtEmulator ??= import(pathToFileURL(join(dirname(dirname(BIN)), 'dist', 'emulator', 'index.js')).href) as Promise<EmulatorEntry>);
  const running = await start({
    port: 0, host: '127.0.0.1', memory: true, clock: 'system', limits: true, allowedHosts: [], trustProxy: [],
    allowLoopbackTargets: false, accessRequests: false, logger: false,
  });
  const info = readyLine(running);
  const credential = (env: string) => info.stores.find((s) => s.environment === env)!.credential!;
  return {
    target: { hostPort: new URL(info.url).host, testCredential: credential('test'), liveCredential: credential('live') },
    stop: () => running.close(),
  };
}

/**
 * A team sandbox doc's stand-in for the reader's ERP connector (as in docs/homologation.md's CI recipe):
 * `./start-connector.sh`, run with MERCHANT_KIT_BASE_URL, MERCHANT_KIT_CREDENTIAL and the store token in
 * MERCHANT_KIT_ADMIN_TOKEN, hands them to the runner (a file it removes at once: no credential stays in
 * the folder), which starts merchant-kit's reference ERP on them (test/helpers/reference-erp.ts) with
 * a person doing the session's tasks, and returns once its webhook is configured.
 */
const START_CONNECTOR = `#!/bin/sh
# The docs runner's stand-in for your ERP's connector: it starts merchant-kit's reference ERP.
umask 077
printf '%s\\n%s\\n%s\\n' "$MERCHANT_KIT_BASE_URL" "$MERCHANT_KIT_CREDENTIAL" "$MERCHANT_KIT_ADMIN_TOKEN" > .connector.request.tmp
mv .connector.request.tmp .connector.request
while [ ! -f .connector.ready ]; do sleep 0.1; done
cat .connector.ready
rm -f .connector.ready
`;

interface Connector {
  stop(): Promise<void>;
}

/** Watches `dir` for the stand-in's request and runs the reference ERP and its person until stopped. */
function connectorStandIn(dir: string, certificate: string | undefined, processUrl: string): Connector {
  writeFileSync(join(dir, 'start-connector.sh'), START_CONNECTOR, { mode: 0o755 });
  const running: { close(): Promise<void> }[] = [];
  let busy = false;
  const timer = setInterval(() => {
    const file = join(dir, '.connector.request');
    if (busy || !existsSync(file)) return;
    busy = true;
    const [baseUrl, credential, token] = readFileSync(file, 'utf8').split('\n');
    rmSync(file);
    void (async () => {
      const { Agent } = await import('undici');
      const { startReferenceErp, driveTasks } = await import('../helpers/reference-erp.js');
      const dispatcher = new Agent(certificate ? { connect: { ca: readFileSync(certificate) } } : {});
      try {
        const erp = await startReferenceErp(baseUrl!, credential!, { dispatcher });
        const me = await erp.client.me();
        // The person reads the tasks from a process directly (its own address: no certificate to trust).
        const driver = driveTasks(`${processUrl}/_emulator`, me.integration.id, erp.operator, 200, token || undefined);
        running.push({ close: async () => { await driver.stop(); await erp.close(); await dispatcher.close(); } });
        writeFileSync(join(dir, '.connector.ready'), `connector started: integration ${me.integration.id}, webhook ${erp.receiver.url}\n`);
      } catch (error) {
        writeFileSync(join(dir, '.connector.ready'), `the stand-in connector could not start: ${(error as Error).message}\n`);
      } finally {
        busy = false;
      }
    })();
  }, 100);
  return {
    async stop() {
      clearInterval(timer);
      for (const r of running.splice(0)) await r.close();
    },
  };
}

const CURL = execFileSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).trim();
const TERMINAL_SESSION = join(ROOT, 'test', 'helpers', 'terminal-session.py');
const TERMINAL_PROBE = join(ROOT, 'test', 'helpers', 'terminal-probe.cjs');
/** The filters on this machine's PATH, each with the program its shim runs. */
const FILTER_PROGRAMS = FILTERS.map((name) => [name, execFileSync('sh', ['-c', `command -v ${name} || true`], { encoding: 'utf8' }).trim()] as const).filter(([, path]) => path !== '');

/**
 * `merchant-kit` and `npx merchant-kit` on PATH, both the repo's built bin; curl failing on HTTP errors;
 * for a probed script run, the filters' shims (helpers/docs.ts, filterShim).
 */
function shims(dir: string, probed = false): string {
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  const write = (name: string, text: string) => {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  };
  write('merchant-kit', `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  // An answer of 400 or more fails the command (and so the block), its body still printed.
  write('curl', `#!/bin/sh\nexec "${CURL}" --fail-with-body "$@"\n`);
  write(
    'npx',
    `#!/bin/sh
while [ "$1" = "-y" ] || [ "$1" = "--yes" ] || [ "$1" = "--no-install" ]; do shift; done
if [ "$1" = "merchant-kit" ]; then shift; exec "${process.execPath}" "${BIN}" "$@"; fi
echo "docs runner: only npx merchant-kit is available here (got: npx $*)" >&2
exit 127
`,
  );
  if (probed) for (const [name, program] of FILTER_PROGRAMS) write(name, filterShim(name, program));
  return bin;
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** Set when the runner stopped the session: which limit, and the block that was running. */
  stopped: Stop | null;
  /** How long each block ran (ms), in order, as seen from the markers. */
  times: number[];
  /** The markers seen: which blocks started, and whether the end was reached. */
  markers: MarkerClock;
  mode: SessionMode;
  /** The processes of the session still running when it ended (then killed). */
  leftovers: SessionProcess[];
}

const DEFAULT_LIMITS = { blockMs: BLOCK_TIMEOUT_MS, fileMs: FILE_TIMEOUT_MS };

/**
 * How long the processes a session stopped in its last block may take to exit before they count as
 * left running (on a quiet machine; it grows with the load). A healthy stop takes well under a second.
 */
const LEFTOVER_GRACE_MS = 15_000;

/**
 * The processes of the session (by the SESSION_ENV mark of `env`) still running once bash exited:
 * with `grace`, those that do not exit within LEFTOVER_GRACE_MS. All are killed, the detached ones
 * too (an `emulator start --detach` is out of reach of the process-group kill).
 */
async function reapSession(env: NodeJS.ProcessEnv, grace: boolean): Promise<SessionProcess[]> {
  const mark = env[SESSION_ENV];
  if (!mark) return [];
  let left = sessionProcesses(mark);
  for (const deadline = loadDeadline(LEFTOVER_GRACE_MS); grace && left.length > 0 && !deadline.passed(); left = sessionProcesses(mark)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  return left;
}

/**
 * Runs a session script: as `bash -c` with stdin closed (`pipe`), or pasted into a pseudo-terminal
 * (`terminal`: terminal-session.py starts bash on it and writes the script in, then end-of-file).
 * With `strict`, the processes its blocks left running are waited for a moment, then reported.
 */
function runSession(script: string, cwd: string, env: NodeJS.ProcessEnv, limits = DEFAULT_LIMITS, mode: SessionMode = 'pipe', strict = false): Promise<Outcome> {
  return new Promise((resolve) => {
    const child =
      mode === 'pipe'
        ? spawn('bash', ['--noprofile', '--norc', '-c', script], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
        : spawn('python3', [TERMINAL_SESSION], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    // The script run's stdin is a pipe closed at once: a command that reads it finds its end at once,
    // as on /dev/null, and the probe (PROBE_PROLOGUE) tells it from any other stream of the session.
    child.stdin!.end(mode === 'terminal' ? script : undefined);
    let output = '';
    let stopped: Stop | null = null;
    const markers = new MarkerClock(Date.now());
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const stop = (limit: Stop['limit'], limitMs: number) => {
      if (stopped) return;
      stopped = { limit, limitMs, block: markers.current, ranMs: Date.now() - markers.blockStartedAt, loadFactor: loadFactor() };
      kill();
    };
    // Both limits grow with the machine's load (helpers/wait.ts): they bound a hang, never a slow run.
    // The block limit restarts at each marker: a block that makes no progress is stopped.
    let blockTimer = loadTimer(limits.blockMs, () => stop('block', limits.blockMs));
    const fileTimer = loadTimer(limits.fileMs, () => stop('file', limits.fileMs));
    const take = (d: Buffer) => {
      output += d;
      if (markers.read(output, Date.now())) {
        blockTimer.cancel();
        blockTimer = loadTimer(limits.blockMs, () => stop('block', limits.blockMs));
      }
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    let exit: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
    let reaped: Promise<SessionProcess[]> = Promise.resolve([]);
    // When bash exits, whatever a block left running in the background (a receiver, a proxy) goes
    // with it; its end of the output pipes closes then, and the session's output is complete.
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // A strict session's own stops are given time first: what is still there then was left running.
      reaped = strict ? reapSession(env, true).finally(kill) : (kill(), reapSession(env, false));
    });
    child.on('close', () => {
      blockTimer.cancel();
      fileTimer.cancel();
      void reaped.then((leftovers) => resolve({ ...exit, output, stopped, times: markers.finish(Date.now()), markers, mode, leftovers }));
    });
  });
}

/** Why a session failed, or null when every block ran, in order, to the end. */
function sessionFailure(file: string, blocks: { line: number; code: string }[], outcome: Outcome): string | null {
  const skipped = outcome.mode === 'terminal' ? outcome.markers.firstSkipped(blocks.length) : null;
  const index = skipped !== null ? skipped - 1 : lastBlock(outcome.output);
  if (outcome.code === 0 && index === null && !outcome.stopped && skipped === null) return null;
  const block = blocks[Math.max(0, index ?? 0)];
  const at = outcome.output.lastIndexOf(`${BLOCK_MARK} ${index}`);
  const own = (at < 0 ? outcome.output : outcome.output.slice(at)).split('\n').slice(1).join('\n');
  const shown = outcome.mode === 'terminal' ? terminalText(own) : own;
  const why = describeEnd({ ...outcome, skipped });
  const where = outcome.mode === 'terminal' ? ' (pasted into a terminal)' : '';
  return `${file}:${block.line}${where}: ${why}\n--- block ---\n${block.code}\n--- output ---\n${shown.slice(-4000)}`;
}

/** The runs of one doc, one after the other (each waits for the one started before it). */
const runsOfFile = new Map<string, Promise<unknown>>();
function oneRunAtATime<T>(file: string, run: () => Promise<T>): Promise<T> {
  const mine = (runsOfFile.get(file) ?? Promise.resolve()).then(run, run);
  runsOfFile.set(file, mine.catch(() => undefined));
  return mine;
}

/** A session's scratch folder, with what a reader has at hand in a clone of the repo. */
function sessionFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-docs-'));
  for (const name of ['fixtures', 'docs']) if (existsSync(join(ROOT, name))) symlinkSync(join(ROOT, name), join(dir, name), 'dir');
  return dir;
}

/** A session's folder and its emulator, started there (its ready line may still be on its way). */
interface Prepared {
  dir: string;
  emulator: Promise<Emulator>;
}

function prepare(): Prepared {
  const dir = sessionFolder();
  const emulator = startEmulator();
  // Awaited by the session that takes it; a start that fails fails that session, with the reason.
  emulator.catch(() => undefined);
  return { dir, emulator };
}

/**
 * The sessions against an emulator that have not started yet (each such doc runs twice), and the
 * folder and emulator prepared for the next one (issue 27): each session takes the one started while
 * the previous ran and starts the next, so that no session waits for an emulator's start (a second
 * or two of a busy machine, 32 times). Still a fresh emulator of its own, in the session's folder:
 * nothing has called it before its session does.
 */
let emulatorSessionsLeft = 2 * RUNNABLE.filter((f) => !POSTGRES_FILES.includes(f)).length;
let spare: Prepared | null = null;
function takePrepared(): Prepared {
  emulatorSessionsLeft--;
  const mine = spare ?? prepare();
  spare = emulatorSessionsLeft > 0 ? prepare() : null;
  return mine;
}

/** A terminal run that is not made: one session fewer to prepare an emulator for. */
function skipTerminalRun(): void {
  emulatorSessionsLeft--;
  if (emulatorSessionsLeft <= 0) void dropSpare();
}

/** The script run of each doc, which its terminal run awaits (it is made only where it can fail). */
const scriptRuns = new Map<string, Promise<FileRun>>();

/** The spare nobody took (a run of some files only, with -t): stopped, its folder removed. */
async function dropSpare(): Promise<void> {
  const left = spare;
  spare = null;
  if (!left) return;
  const emulator = await left.emulator.catch(() => null);
  await emulator?.stop();
  rmSync(left.dir, { recursive: true, force: true });
}

interface FileRun {
  failure: string | null;
  blocks: number;
  times: number[];
  /** A script run's: why its terminal run can differ (terminalReasons); empty when nothing can. */
  terminal: string[];
}

async function runFile(file: string, mode: SessionMode = 'pipe'): Promise<FileRun> {
  const markdown = readFileSync(join(ROOT, file), 'utf8');
  const blocks = shellBlocks(markdown);
  const team = needsPostgres(markdown);
  const prepared = team ? null : takePrepared();
  const dir = prepared?.dir ?? sessionFolder();
  let emulator: Emulator & { nginx?: Nginx };
  try {
    emulator = prepared ? await prepared.emulator : await teamSandbox(markdown);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // Outside the session's folder (the trace holds the commands, credentials included), removed at the end.
  const probeDir = mode === 'pipe' ? mkdtempSync(join(tmpdir(), 'merchant-kit-docs-probe-')) : null;
  const probe = probeDir ? { dir: probeDir, log: join(probeDir, 'probe.log'), trace: join(probeDir, 'trace') } : null;
  try {
    const adapted = blocks.map((b) => ({ ...b, code: adaptPublicUrl(adaptBlock(b.code, emulator.target), emulator.nginx?.port) }));
    const env: NodeJS.ProcessEnv = {
      // Behind the doc's nginx: the CLI (Node) and curl trust the certificate the runner made.
      ...(emulator.nginx ? { NODE_EXTRA_CA_CERTS: emulator.nginx.certificate, CURL_CA_BUNDLE: emulator.nginx.certificate } : {}),
      PATH: `${shims(dir, mode === 'pipe')}:${process.env.PATH}`,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, '.config'),
      TMPDIR: tmpdir(),
      NO_COLOR: '1',
      LANG: 'C.UTF-8',
      // What a terminal emulator sets; spinners draw only on a terminal that is not `dumb`.
      ...(mode === 'terminal' ? { TERM: 'xterm-256color' } : {}),
      // Marks every process the blocks start: what they leave running is found, and stopped.
      [SESSION_ENV]: randomBytes(8).toString('hex'),
      // The script run notes what could go otherwise on a terminal (helpers/terminal-probe.cjs).
      ...(probe ? { NODE_OPTIONS: `--require ${JSON.stringify(TERMINAL_PROBE)}`, [PROBE_ENV.LOG]: probe.log, [PROBE_ENV.TRACE]: probe.trace } : {}),
    };
    const connector = team && emulator.target.ports ? connectorStandIn(dir, emulator.nginx?.certificate, `http://127.0.0.1:${emulator.target.ports[4011]}`) : null;
    const script = probe ? `${PROBE_PROLOGUE}\n${sessionScript(adapted)}` : sessionScript(adapted);
    const outcome = await runSession(script, dir, env, DEFAULT_LIMITS, mode, team).finally(() => connector?.stop());
    reportTimes(`${file}${mode === 'terminal' ? ' (terminal)' : ''}`, blocks.map((b) => ({ ...b, file })), outcome.times);
    let failure = sessionFailure(file, blocks, outcome);
    if (failure === null) {
      const leaked = credentialFiles(dir);
      if (leaked.length) failure = `${file}: the blocks left a credential in clear in the working directory: ${leaked.join(', ')}`;
    }
    if (failure === null && team && outcome.leftovers.length > 0) {
      const list = outcome.leftovers.map((p) => `  ${p.pid}: ${p.command}`).join('\n');
      failure = `${file}: the blocks left processes running (stop each in the blocks, by the pid of its ready line):\n${list}`;
    }
    const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
    const terminal = probe ? terminalReasons(read(probe.log), read(probe.trace), script) : [];
    return { failure, blocks: blocks.length, times: outcome.times, terminal };
  } finally {
    await emulator.stop();
    keepSession(file, mode, dir);
    rmSync(dir, { recursive: true, force: true });
    if (probe) rmSync(probe.dir, { recursive: true, force: true });
  }
}

/**
 * With MERCHANT_KIT_DOCS_KEEP=<folder>, a copy of each session's working folder (what its blocks
 * wrote: a homologation report, a balancer's ready line) is kept there, to read after a slow or
 * failed run; the runner's own links and shims are left out.
 */
function keepSession(file: string, mode: SessionMode, dir: string): void {
  const keep = process.env.MERCHANT_KIT_DOCS_KEEP;
  if (!keep) return;
  const to = join(keep, `${file.replace(/[^A-Za-z0-9.-]+/g, '_')}-${mode}-${Date.now()}`);
  cpSync(dir, to, { recursive: true, filter: (path) => !['.bin', 'fixtures', 'docs'].some((skip) => path === join(dir, skip)) });
}

/** With MERCHANT_KIT_DOCS_TIMES=1, each file's time and its slowest block (how the limits were sized). */
function reportTimes(label: string, blocks: { line: number; file: string }[], times: number[]): void {
  if (!process.env.MERCHANT_KIT_DOCS_TIMES) return;
  const total = times.reduce((a, b) => a + b, 0);
  const slowest = times.reduce((best, t, i) => (t > times[best]! ? i : best), 0);
  const where = blocks[slowest] ? `${blocks[slowest].file}:${blocks[slowest].line}` : label;
  const file = label;
  console.info(`[docs times] ${file} ${(total / 1000).toFixed(1)} s, ${times.length} blocks, slowest ${where} ${((times[slowest] ?? 0) / 1000).toFixed(1)} s`);
}

describe('the docs run as written (issue 10, item 9)', () => {
  beforeAll(async () => {
    BIN = join(await runBuild(), 'bin', 'merchant-kit.js');
  }, 300_000);
  afterAll(dropSpare);

  it('finds the shell blocks of README.md and docs/*.md', () => {
    expect(FILES).toContain('README.md');
    expect(FILES.length).toBeGreaterThan(5);
  });

  if (SKIPPED.length > 0) it.skip.each(SKIPPED)('%s: needs PostgreSQL (MERCHANT_KIT_TEST_DATABASE_URL is not set)', () => undefined);

  // The longest chains first (LONGEST_FIRST), in pairs: both files' scripts, then both pasted into a
  // terminal where that is made; each takes its place in `sessions` once it can start. The last
  // sessions to start are short ones, so the docs end together instead of one long file running alone
  // at the end. The two runs of one file never overlap (oneRunAtATime): a doc may use a fixed port of
  // its own, like catalog.md's image server on 8089.
  for (let i = 0; i < LONGEST_FIRST.length; i += 2) {
    const pair = LONGEST_FIRST.slice(i, i + 2);
    for (const file of pair) {
      it.concurrent(`${file}: every \`\`\`sh block exits 0, in order, against a fresh emulator`, async () => {
        const run = oneRunAtATime(file, () => sessions(() => runFile(file)));
        scriptRuns.set(file, run);
        const { failure } = await run;
        expect(failure, failure ?? '').toBeNull();
      }, SESSION_QUEUE_MS);
    }
    // Made only where it can fail (issue 27): where the script run saw a process read stdin or look
    // at a terminal, or ran a program the runner does not know (terminalReasons), or did not get to
    // its end. Elsewhere every command did on pipes exactly what it does on a terminal.
    for (const file of pair) {
      it.concurrent(`${file}: pasted into a terminal, every \`\`\`sh block runs to the end (no command eats the lines after it)`, async (context) => {
        const script = await scriptRuns.get(file)?.catch(() => null);
        if (script && script.failure === null && script.terminal.length === 0) {
          if (!POSTGRES_FILES.includes(file)) skipTerminalRun();
          context.skip('nothing its script run did reads stdin or looks at a terminal: it runs the same there');
        }
        if (script && process.env.MERCHANT_KIT_DOCS_TIMES) console.info(`[docs terminal] ${file}: ${script.terminal.join('; ')}`);
        const { failure } = await oneRunAtATime(file, () => sessions(() => runFile(file, 'terminal')));
        expect(failure, failure ?? '').toBeNull();
      }, SESSION_QUEUE_MS);
    }
  }

  // The runner's own cases, after the docs (issue 27): they mostly wait for a limit to fire, a few
  // seconds grown with the load, and run two at a time with the last, short docs instead of alone
  // before the first.
  // issue 18: a failure names the block and says whether a time limit stopped it or it exited non-zero.
  it.concurrent.each([
    ['a block that hangs is stopped by the block limit', ['echo one', 'sleep 600'], { blockMs: 1_500, fileMs: 60_000 }, 1, "stopped by the docs runner's time limit"],
    ['a file that runs too long is stopped by the file limit', ['sleep 0.5', 'sleep 0.5', 'sleep 600'], { blockMs: 600_000, fileMs: 4_000 }, 2, "the file was stopped by the docs runner's time limit of 4 s"],
    ['a block that fails exits with its code', ['echo one', 'exit 7'], { blockMs: 60_000, fileMs: 60_000 }, 1, 'the block exited with code 7'],
  ])('%s', async (_name, codes, limits, block, expected) => {
    const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-docs-limits-'));
    try {
      const outcome = await sessions(() => runSession(sessionScript(codes.map((code) => ({ code }))), dir, { PATH: process.env.PATH }, limits));
      expect(lastBlock(outcome.output)).toBe(block);
      expect(describeEnd(outcome)).toContain(expected);
      expect(outcome.stopped?.block ?? block).toBe(block);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, SESSION_QUEUE_MS);

  // issue 27: a doc's terminal run is made only where its script run saw something that can go
  // otherwise on a terminal. Each case is one block run as a doc's script run is (probe, trace, shims).
  it.concurrent.each([
    ['commands that neither read stdin nor look at a terminal', 'echo hi; X=$(date); curl --version > /dev/null; ls > /dev/null; printf "%s" "$X" | wc -c > /dev/null', []],
    ['a Node program that asks whether its output is a terminal', `node -e 'if (process.stdout.isTTY) console.log("tty")'`, ['process.stdout.isTTY']],
    ['a Node program that reads stdin', `node -e 'process.stdin.resume()'`, ['process.stdin']],
    ['a Node program that reads stdin through fs', `node -p 'require("fs").readFileSync(0, "utf8").length'`, ['fs.readFileSync(stdin)']],
    ['a Node program that reads a pipe', `echo 1 | node -p 'require("fs").readFileSync(0, "utf8").length'`, []],
    ['a Node program that starts a program on the session\'s streams', `node -e 'require("child_process").spawnSync("true", { stdio: "inherit" })'`, ["with the session's streams"]],
    ['a spinner (ora asks whether stderr is a terminal)', `node --input-type=module -e 'const { default: ora } = await import(${JSON.stringify(join(ROOT, 'node_modules', 'ora', 'index.js'))}); ora({ stream: process.stderr, discardStdin: false }).start().stop()'`, ['process.stderr.isTTY']],
    ["the CLI's credential prompt (profile add without --credential-stdin)", 'merchant-kit profile add demo --base-url http://127.0.0.1:1/sandbox/v1 || true', ['process.stdin.isTTY']],
    ['a filter on the session\'s stdin', 'cat > /dev/null', ["cat reads the session's stdin"]],
    ['a filter whose only operand is its pattern', 'grep -c x > /dev/null || true', ["grep reads the session's stdin"]],
    ['a filter given stdin as an operand', 'echo x > f; cat f - > /dev/null', ["cat reads the session's stdin"]],
    ['filters on a pipe, a here-document or a file', 'echo x > f; echo x | grep -c x > /dev/null; cat <<EOF > /dev/null\nline\nEOF\nhead -n 1 f > /dev/null; grep -q x f', []],
    ['a function of the session (its body is traced)', 'f() { echo "$1"; }\nf one', []],
    ['the shell reading stdin', 'read -r line || true', ['read (a program the runner does not know']],
    ['a terminal test', '[ -t 1 ] || echo no', ['[ -t asks whether a stream is a terminal']],
    ['a program the runner does not know, inside a command substitution', 'X=$(python3 -c "print(1)")', ['python3 (a program the runner does not know']],
  ])('the terminal run is made where the script run saw: %s', async (_name, code, expected) => {
    const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-docs-probe-case-'));
    try {
      const probe = { log: join(dir, 'probe.log'), trace: join(dir, 'trace') };
      mkdirSync(join(dir, 'session'));
      const env = {
        PATH: `${shims(join(dir, 'session'), true)}:${process.env.PATH}`, HOME: join(dir, 'session'), NO_COLOR: '1',
        NODE_OPTIONS: `--require ${JSON.stringify(TERMINAL_PROBE)}`, [PROBE_ENV.LOG]: probe.log, [PROBE_ENV.TRACE]: probe.trace,
      };
      const script = `${PROBE_PROLOGUE}\n${sessionScript([{ code }])}`;
      const outcome = await sessions(() => runSession(script, join(dir, 'session'), env, { blockMs: 60_000, fileMs: 60_000 }));
      expect(outcome.code, outcome.output).toBe(0);
      const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
      const reasons = terminalReasons(read(probe.log), read(probe.trace), script);
      if (expected.length === 0) expect(reasons).toEqual([]);
      for (const part of expected) expect(reasons.some((r) => r.includes(part)), reasons.join('\n')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, SESSION_QUEUE_MS);

  // issue 14: pasted into a terminal, a command sees the lines pasted after it on its stdin.
  const ORA = join(ROOT, 'node_modules', 'ora', 'index.js');
  const spinner = (discardStdin?: boolean) =>
    `node --input-type=module -e 'const { default: ora } = await import(${JSON.stringify(ORA)}); ` +
    `const s = ora({ text: "working", stream: process.stderr${discardStdin === undefined ? '' : `, discardStdin: ${discardStdin}`} }).start(); ` +
    `await new Promise((r) => setTimeout(r, 800)); s.succeed("done");'`;

  it.concurrent.each([
    ['on a terminal, stdin, stdout and stderr are terminals with a size, and the shell runs the paste as a script', ['[ -t 0 ] && [ -t 1 ] && [ -t 2 ]', 'stty size', 'case "$-" in *i*) exit 9 ;; esac'], 'pass'],
    ["a spinner with ora's default discardStdin eats the pasted blocks after it: the terminal run fails, naming the spinner's block", [spinner(), 'echo second', 'echo third'], 'fail'],
    ['a spinner made with discardStdin: false (the CLI\'s spinner factory) lets every later block run', [spinner(false), 'echo second', 'echo third'], 'pass'],
    ['a failing block on a terminal is reported with its exit code', ['echo one', 'exit 7'], 'exit 7'],
  ])('%s', async (_name, codes, expected) => {
    const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-docs-terminal-'));
    try {
      const blocks = codes.map((code, i) => ({ code, line: i + 1 }));
      const outcome = await sessions(() => runSession(sessionScript(blocks), dir, { PATH: process.env.PATH, TERM: 'xterm-256color' }, { blockMs: 20_000, fileMs: 40_000 }, 'terminal'));
      const failure = sessionFailure('demo.md', blocks, outcome);
      if (expected === 'pass') expect(failure, failure ?? '').toBeNull();
      else if (expected === 'exit 7') expect(failure).toContain('demo.md:2 (pasted into a terminal): the block exited with code 7');
      else {
        expect(outcome.stopped).toBeNull();
        expect(failure).toContain('demo.md:1 (pasted into a terminal): the shell found no more input before the next block: a command of this block read the rest of the pasted lines');
        expect(outcome.output).not.toContain('second');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, SESSION_QUEUE_MS);
});
