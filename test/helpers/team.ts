import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll } from 'vitest';
import type { ReadyInfo } from '../../emulator/server.js';
import { BIN, ensureBuilt, ROOT, type CliProcess } from './cli.js';
import { readyCalls, type CallOptions, type Response } from './emulator.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';
import { startReceiver, type Received, type Receiver } from './receiver.js';
import { verify } from '../../src/webhooks/sign.js';
import { waitFor } from './wait.js';

/**
 * A team sandbox for tests (DESIGN: Storage and the team sandbox): several emulator processes of the
 * built CLI on one PostgreSQL database, each started with `emulator start --port 0 --json
 * --database-url …`, and a client that spreads requests over them round-robin. Every process is
 * killed with SIGKILL at the end: after the file, and when the test process exits before (a failed
 * hook, an error), so that a failed run leaves no emulator behind.
 */

const everyChild = new Set<CliProcess>();
process.once('exit', () => {
  for (const p of everyChild) if (alive(p)) p.child.kill('SIGKILL');
});

const alive = (p: CliProcess) => p.child.exitCode === null && p.child.signalCode === null;

/** One process of the sandbox, with calls to its own address. */
export interface Member {
  ready: ReadyInfo;
  process: CliProcess;
  /** The sandbox API (`/sandbox/v1` + path), with the ready line's test credential unless told. */
  api<T = any>(method: string, path: string, options?: CallOptions): Promise<Response<T>>;
  /** The live API (`/v1` + path), with the ready line's live credential unless told. */
  liveApi<T = any>(method: string, path: string, options?: CallOptions): Promise<Response<T>>;
  /** The control API (`/_emulator` + path), JSON in and out. */
  control<T = any>(method: string, path: string, body?: unknown): Promise<Response<T>>;
  /** SIGKILL, resolved once it is gone. */
  kill(): Promise<void>;
}

export interface TeamOptions {
  processes?: number;
  clock?: 'manual' | 'system';
  /** More arguments of `emulator start`. */
  args?: string[];
}

export interface Team {
  database: TestDatabase;
  members: Member[];
  /** The ready line's test store (the same on every process). */
  test: ReadyInfo['stores'][number];
  /** The next process, round-robin. */
  next(): Member;
  api<T = any>(method: string, path: string, options?: CallOptions): Promise<Response<T>>;
  control<T = any>(method: string, path: string, body?: unknown): Promise<Response<T>>;
  /**
   * A process that runs `startEmulator()` with options the CLI has no flag for (a test-only webhook
   * timeout); with `dieOnFirstRequest`, one that kills itself once its first outgoing request has left.
   */
  addScripted(options: Record<string, unknown>, how?: { dieOnFirstRequest?: boolean }): Promise<Member>;
  /** Every process killed (SIGKILL) and as many started again on the same database. */
  restart(): Promise<void>;
  /** Every process killed; the database stays until the file ends. */
  stop(): Promise<void>;
}

/** Spawns a node process and resolves with its first stdout line parsed as the ready line. */
function spawnMember(argv: string[], env: NodeJS.ProcessEnv = {}): { process: CliProcess; ready: Promise<ReadyInfo> } {
  const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env } });
  const lines: string[] = [];
  let err = '';
  child.stderr.on('data', (d) => (err += String(d)));
  const firstLine = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (lines.length === 1) resolve(line);
    });
    child.on('exit', (code, signal) => reject(new Error(`the emulator exited (${code ?? signal}) before its ready line; stderr: ${err}`)));
  });
  firstLine.catch(() => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
  const cli: CliProcess = { child, lines, stderr: () => err, firstLine, exited };
  everyChild.add(cli);
  void exited.then(() => everyChild.delete(cli));
  return { process: cli, ready: firstLine.then((line) => JSON.parse(line) as ReadyInfo) };
}

async function kill(p: CliProcess): Promise<void> {
  if (alive(p)) p.child.kill('SIGKILL');
  await p.exited;
}

function member(p: CliProcess, ready: ReadyInfo): Member {
  const { api, liveApi, control } = readyCalls(ready);
  return { ready, process: p, api, liveApi, control, kill: () => kill(p) };
}

/**
 * The `emulator start` arguments of a team member. The tests' receivers listen on loopback, which a
 * shared sandbox refuses unless told (`--allow-loopback-targets`).
 */
function startArgs(url: string, options: TeamOptions): string[] {
  return [BIN, 'emulator', 'start', '--port', '0', '--json', '--database-url', url, '--clock', options.clock ?? 'manual', '--allow-loopback-targets', ...(options.args ?? [])];
}

/**
 * With `dieOnFirstRequest`, the process kills itself (SIGKILL) as its first outgoing HTTP request
 * has left (its 'finish': the whole request handed to the system): a process that dies mid-attempt,
 * at a moment that does not depend on when the test's own process gets to run.
 */
const DIE_ON_FIRST_REQUEST = `
  (await import('node:diagnostics_channel')).subscribe('http.client.request.start', ({ request }) =>
    request.once('finish', () => process.kill(process.pid, 'SIGKILL')));
`;

// startEmulator() from the built package, printing the ready line as the CLI does.
const SCRIPT = (options: Record<string, unknown>, dieOnFirstRequest = false) => `${dieOnFirstRequest ? DIE_ON_FIRST_REQUEST : ''}
  const { startEmulator, readyLine } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'emulator', 'index.js')).href)});
  const running = await startEmulator(${JSON.stringify(options)});
  process.stdout.write(JSON.stringify(readyLine(running)) + '\\n');
`;

/**
 * A team of `processes` (2 by default) on a fresh database of the test server, under a manual clock
 * unless told. The database is dropped and every process killed after the file.
 */
export async function startTeam(options: TeamOptions = {}): Promise<Team> {
  await ensureBuilt();
  const database = await createTestDatabase();
  const members: Member[] = [];
  let turn = 0;
  const startAll = async (n: number) => {
    // Together, as a fleet starts: the migrations and the demo stores are made once.
    const spawned = Array.from({ length: n }, () => spawnMember(startArgs(database.url, options)));
    try {
      const ready = await Promise.all(spawned.map((s) => s.ready));
      members.push(...spawned.map((s, i) => member(s.process, ready[i]!)));
    } catch (error) {
      await Promise.all(spawned.map((s) => kill(s.process)));
      throw error;
    }
  };
  try {
    await startAll(options.processes ?? 2);
  } catch (error) {
    await database.drop();
    throw error;
  }
  const first = members[0]!.ready;
  // Round-robin over the processes still running (a test may kill one).
  const next = () => {
    const running = members.filter((m) => alive(m.process));
    if (running.length === 0) throw new Error('no process of the team is running');
    return running[turn++ % running.length]!;
  };
  const stop = async () => {
    await Promise.all(members.splice(0).map((m) => m.kill()));
  };
  const team: Team = {
    database,
    members,
    test: first.stores.find((s) => s.environment === 'test')!,
    next,
    api: (method, path, o) => next().api(method, path, o),
    control: (method, path, body) => next().control(method, path, body),
    async addScripted(scripted, how = {}) {
      const script = SCRIPT({ port: 0, clock: options.clock ?? 'manual', databaseUrl: database.url, allowLoopbackTargets: true, ...scripted }, how.dieOnFirstRequest);
      const spawned = spawnMember(['--input-type=module', '-e', script]);
      const m = member(spawned.process, await spawned.ready);
      members.push(m);
      return m;
    },
    async restart() {
      const n = members.length;
      await stop();
      await startAll(n);
    },
    stop,
  };
  teams.push(team);
  return team;
}

const teams: Team[] = [];
const receivers: Receiver[] = [];

/** Call once at the top level of a file that starts teams: kills their processes, drops their databases and closes their receivers after it. */
export function useTeams(): void {
  afterAll(async () => {
    for (const team of teams.splice(0)) {
      await team.stop();
      await team.database.drop();
    }
    for (const rx of receivers.splice(0)) await rx.close();
  });
}

/** A team, a webhook receiver (closed after the file) and a product in the test store, so that it takes orders. */
export async function startTeamWithReceiver(options: TeamOptions = {}): Promise<{ team: Team; rx: Receiver }> {
  const team = await startTeam(options);
  const rx = await startReceiver();
  receivers.push(rx);
  await stock(team);
  return { team, rx };
}

/** The same request from every process at once (a race across the sandbox). */
export function fromEach<T>(team: Team, fn: (m: Member, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(team.members.map((m, i) => fn(m, i)));
}

/** A product in the test store (the seeded one, or the credential's), so that it accepts orders. */
export async function stock(team: Team, credential?: string): Promise<void> {
  for (const [path, body] of [
    ['/catalog/categories/TEAM-CAT', { name: 'Comidas' }],
    ['/catalog/products/TEAM-BURGER', { name: 'Hamburguesa', category_external_id: 'TEAM-CAT', price: '35000' }],
  ] as const) {
    const res = await team.api('PUT', path, { body, credential });
    if (res.status >= 300) throw new Error(`PUT ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
}

/** A simulated order (control API) on the next process; throws unless 201. */
export async function simulate(team: Team, storeId = team.test.store_id, on: Member = team.next()): Promise<any> {
  const res = await on.control('POST', '/orders', { store_id: storeId, scenario: 'delivery' });
  if (res.status !== 201) throw new Error(`POST /_emulator/orders answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** A new sandbox store and integration (control API), with a product: its own rate budget and feed. */
export async function newStore(team: Team): Promise<{ storeId: string; integrationId: string; credential: string }> {
  const res = await team.control('POST', '/stores', { environment: 'test' });
  if (res.status !== 201) throw new Error(`POST /_emulator/stores answered ${res.status}: ${JSON.stringify(res.body)}`);
  const { store, integration, credential } = res.body.data;
  await stock(team, credential);
  return { storeId: store.id, integrationId: integration.id, credential };
}

/** The whole feed of a credential (the test store's by default), paged round-robin over the processes. */
export async function readFeed(team: Team, query = '', credential?: string): Promise<any[]> {
  const events: any[] = [];
  let after: string | null = null;
  for (;;) {
    const qs: string = [query, after ? `after=${after}` : '', 'limit=200'].filter(Boolean).join('&');
    const res = await team.api('GET', `/events?${qs}`, { credential });
    if (res.status !== 200) throw new Error(`GET /events answered ${res.status}: ${JSON.stringify(res.body)}`);
    events.push(...res.body.data);
    after = res.body.next_cursor;
    if (!res.body.has_more) return events;
  }
}

let keys = 0;
/** A fresh Idempotency-Key. */
export const freshKey = () => `team-${process.pid}-${Date.now()}-${++keys}`;

/** Points the test store's webhook (or the credential's) at a URL for every event; resolves with its signing secret. */
export async function hook(team: Team, url: string, credential?: string): Promise<string> {
  const res = await team.api('PUT', '/webhook', { body: { url, events: ['*'] }, credential });
  if (res.status !== 201) throw new Error(`PUT /webhook answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.signing_secret as string;
}

/** Requests received, with a valid signature of `secret` each (throws on one that has none), counted by event id. */
export function byEventId(received: Received[], secret: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of received) {
    const check = verify({ signature: r.headers['x-service-signature'] as string, timestamp: r.headers['x-service-timestamp'] as string, rawBody: r.body, secrets: secret });
    if (!check.ok) throw new Error(`a delivery without a valid signature (${check.reason})`);
    const id = r.headers['x-service-event-id'] as string;
    if (JSON.parse(r.body).id !== id) throw new Error('X-Service-Event-Id is not the body\'s id');
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

const isSentinel = (r: Received) => JSON.parse(r.body).type === 'webhook.test';

/**
 * For "nothing more arrives": a `webhook.test` event (POST /webhook/test on `on`, the test store's
 * webhook or the credential's) sent after what the test waited for, awaited at the receiver; resolves
 * with what arrived before it, sentinels left out. A delivery the process had still to make would be
 * claimed no later than the sentinel, so it is counted. Extra copies chaos makes of it are left out too.
 */
export async function sentinel(on: Member, rx: Receiver, credential?: string): Promise<Received[]> {
  const seen = rx.received.filter(isSentinel).length;
  const res = await on.api('POST', '/webhook/test', { credential });
  if (res.status !== 202 || !res.body.data.queued) throw new Error(`POST /webhook/test answered ${res.status}: ${JSON.stringify(res.body)}`);
  await waitFor(() => rx.received.filter(isSentinel).length > seen, () => `the webhook.test sentinel at the receiver (got ${rx.received.length} requests)`);
  return rx.received.filter((r) => !isSentinel(r));
}
