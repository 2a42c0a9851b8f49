import { join } from 'node:path';
import { LIMITS } from '../src/contract/limits.js';
import { createClock, type Clock, type ClockMode } from './clock.js';
import { createEnvContext, type EnvContext } from './context.js';
import { cryptoRandom, seededRandom } from '../src/contract/random.js';
import { IdSource } from './id-source.js';
import { ENVIRONMENTS, type Environment } from '../src/contract/store.js';
import { OutboundGuard } from './net/outbound.js';
import type { StoragePort, Outbox } from './store/port.js';
import type { ClockState, SeededStore, SharedState } from './store/coordination.js';
import { whenReady, type MaybePromise } from './store/maybe.js';
import { REQUEST_TIMEOUT_MS } from '../src/server/timeouts.js';
import { isLoopbackHost } from '../src/contract/hosts.js';
import { adminTokenProblem } from '../src/server/admin-token.js';
import { parseTrustedProxies } from './net/trusted-proxies.js';

/** DESIGN: a delivery's claim outlives its attempt by the response timeout plus 5 s of real time. */
const WEBHOOK_LEASE_MARGIN_MS = 5_000;
/** How often claims whose process died, and due work it left, are looked for (shared databases; nothing to find on SQLite). */
const WEBHOOK_LEASE_SWEEP_MS = 5_000;

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** Folder for the databases; ignored with `memory`. */
  data?: string;
  memory?: boolean;
  /**
   * A PostgreSQL database that keeps the state instead (DESIGN: the team sandbox): several processes
   * started on the same database are one sandbox. Not with `data` or `memory`.
   */
  databaseUrl?: string;
  /** The schemas' prefix in that database (`merchant_kit` by default): one database can hold several sandboxes. */
  databaseSchema?: string;
  clock?: ClockMode;
  limits?: boolean;
  seed?: number;
  /** The control API's token (`--admin-token`): 16 characters or more, no spaces at either end (else start-up throws). */
  adminToken?: string;
  /** Log requests to stderr. */
  logger?: boolean;
  /** Where the log goes instead of stderr (tests). */
  logStream?: NodeJS.WritableStream;
  /** TEST-ONLY: the webhook response timeout in ms (the spec's 10 s by default); lets tests of hanging receivers run fast. */
  webhookTimeoutMs?: number;
  /**
   * TEST-ONLY: how long a delivery's claim outlives its response timeout, in real ms (DESIGN's 5 s by
   * default); lets tests of a process that dies mid-attempt wait less for its lease to run out.
   */
  webhookLeaseMarginMs?: number;
  /** TEST-ONLY: how often, in real ms, claims whose lease ran out are looked for (5 s by default). */
  webhookLeaseSweepMs?: number;
  /**
   * TEST-ONLY: the real time (ms since the epoch) a new sandbox's manual clock stands at, instead of
   * the time it starts. The rate windows are fixed minutes of the emulator's clock: a test that counts
   * requests across clock moves pins where in its minute it starts (the golden session).
   */
  manualClockStart?: number;
  /**
   * TEST-ONLY: the real time (ms since the epoch) the emulator's own per-IP guards count their minutes
   * in (the wrong-token budget of the control API and the access requests); `Date.now` by default. A
   * test that counts to a guard's limit sets a time that starts a minute with the test, instead of
   * waiting for a fresh real minute.
   */
  guardNow?: () => number;
  /** More names the emulator answers to (`--allowed-host`); see emulator/http/host-check.ts. */
  allowedHosts?: string[];
  /** Load balancers whose X-Forwarded-For names the client (`--trust-proxy`); emulator/net/trusted-proxies.ts. */
  trustProxy?: string[];
  /**
   * On a shared sandbox (bound beyond loopback, or with `adminToken` or `databaseUrl`), let webhook
   * deliveries and image downloads reach loopback and this machine's own addresses
   * (`--allow-loopback-targets`); refused there by default. A local emulator always may.
   */
  allowLoopbackTargets?: boolean;
  /**
   * TEST-ONLY: the time to receive a whole request (headers and body), 30 s by default; headers get
   * at most the same. Lets tests of stalled bodies run fast.
   */
  requestTimeoutMs?: number;
  /**
   * DESIGN: The operator's public test environment — integrators may ask for a test store (`--access-requests
   * open`): the page at /access and POST /_emulator/access-requests. Needs `adminToken` (someone approves them).
   */
  accessRequests?: boolean;
  /** The address integrators use (`--public-url https://sandbox.example.com`): the certificates' issuer. */
  publicUrl?: string;
}

export interface ResolvedOptions {
  port: number;
  host: string;
  data: string | null;
  databaseUrl: string | null;
  databaseSchema: string | null;
  clock: ClockMode;
  limits: boolean;
  seed: number | null;
  adminToken: string | null;
  logger: boolean;
  logStream: NodeJS.WritableStream | null;
  webhookTimeoutMs: number;
  webhookLeaseMarginMs: number;
  webhookLeaseSweepMs: number;
  manualClockStart: number | null;
  guardNow: () => number;
  allowedHosts: string[];
  trustProxy: string[];
  requestTimeoutMs: number;
  /** Whether outbound requests may reach loopback and this machine's own addresses (see `loopbackTargetsAllowed`). */
  loopbackTargets: boolean;
  accessRequests: boolean;
  /** An origin (`https://sandbox.example.com`), or null: the process's own address stands for it. */
  publicUrl: string | null;
}


export function resolveOptions(o: EmulatorOptions = {}): ResolvedOptions {
  const tokenProblem = o.adminToken === undefined ? null : adminTokenProblem(o.adminToken);
  if (tokenProblem) throw new Error(`adminToken ${tokenProblem}`);
  return {
    port: o.port ?? 4010,
    host: o.host ?? '127.0.0.1',
    data: o.memory || o.databaseUrl ? null : (o.data ?? join('.merchant-kit', 'emulator')),
    databaseUrl: o.databaseUrl ?? null,
    databaseSchema: o.databaseSchema ?? null,
    clock: o.clock ?? 'system',
    limits: o.limits ?? true,
    seed: o.seed ?? null,
    adminToken: o.adminToken ?? null,
    logger: o.logger ?? false,
    logStream: o.logStream ?? null,
    webhookTimeoutMs: o.webhookTimeoutMs ?? LIMITS.webhookTimeoutMs,
    webhookLeaseMarginMs: o.webhookLeaseMarginMs ?? WEBHOOK_LEASE_MARGIN_MS,
    webhookLeaseSweepMs: o.webhookLeaseSweepMs ?? WEBHOOK_LEASE_SWEEP_MS,
    manualClockStart: o.manualClockStart ?? null,
    guardNow: o.guardNow ?? Date.now,
    allowedHosts: o.allowedHosts ?? [],
    trustProxy: parseTrustedProxies(o.trustProxy ?? []),
    requestTimeoutMs: o.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    loopbackTargets: loopbackTargetsAllowed(o),
    accessRequests: o.accessRequests ?? false,
    publicUrl: o.publicUrl === undefined ? null : publicOrigin(o.publicUrl),
  };
}

/**
 * DESIGN, Storage and the team sandbox: a shared sandbox (bound beyond loopback, or started with
 * --admin-token or --database-url) serves people who are not on its machine, and refuses loopback
 * and its own addresses as targets unless the operator allows them; a local emulator reaches them.
 */
export function loopbackTargetsAllowed(o: EmulatorOptions): boolean {
  const shared = !isLoopbackHost(o.host ?? '127.0.0.1') || o.adminToken !== undefined || o.databaseUrl !== undefined;
  return !shared || o.allowLoopbackTargets === true;
}

/** `--public-url`: an http(s) origin, without a path, query or user (a certificate's issuer is the sandbox's address). */
export function publicOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--public-url ${value} is not a URL`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new Error(`--public-url ${value} must be an http(s) address without a path (https://sandbox.example.com)`);
  }
  return url.origin;
}

/** `http://host:port`, with an IPv6 host in brackets. */
export function baseUrl(host: string, port: number): string {
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** Hooks that parts of the emulator register to take part in reset and shutdown. */
export interface Lifecycle {
  onReset(fn: () => void | Promise<void>): void;
  onClose(fn: () => void | Promise<void>): void;
}

/** The whole emulated service: one clock, two environments over one storage, the sandbox tools' state. */
export class Emulator implements Lifecycle {
  readonly clock: Clock;
  readonly envs: Record<Environment, EnvContext>;
  /** The demo stores that reset brings back and the ready line shows (a restore replaces them). */
  seeds: SeededStore[] = [];
  /** Where webhook deliveries and image downloads may connect (never the emulator itself). */
  readonly outbound: OutboundGuard;
  /**
   * The random bytes of every id this process makes (both environments): the `--seed` stream's,
   * salted by `saltIds()` when this start did not make the sandbox (id-source.ts).
   */
  private readonly idSource: IdSource;
  /** The webhooks aggregate's outbox, set when its background service starts (webhooks/background.ts; every emitted event passes through it). */
  outbox: Outbox | null = null;
  /**
   * The emulator's own base URL (links it hands out, such as `tracking_url`, never come from the
   * client's Host header). startEmulator() sets the real one after listen; until then the options'.
   */
  publicUrl: string;
  private readonly resetHooks: (() => void | Promise<void>)[] = [];
  private readonly closeHooks: (() => void | Promise<void>)[] = [];

  /** The reset generation of the sandbox this process last applied (another process may reset it). */
  private generation = 0;
  /** Moves before and after each change of the clock made here (`changeClock`); `sync` compares it. */
  private clockEpoch = 0;

  /** Made by emulator/open.ts, the composition root, over the storage it opened and the clock where the sandbox left it. */
  constructor(
    readonly options: ResolvedOptions,
    readonly storage: StoragePort,
    clock: ClockState,
  ) {
    this.publicUrl = baseUrl(options.host, options.port);
    this.clock = createClock(options.clock, Date.now, clock.offsetMs, clock.frozenAt);
    this.outbound = new OutboundGuard({ loopback: options.loopbackTargets });
    const random = options.seed === null ? cryptoRandom : seededRandom(options.seed);
    this.idSource = new IdSource(random);
    this.envs = Object.fromEntries(
      ENVIRONMENTS.map((name) => [name, createEnvContext(name, storage.env(name), this.clock, random, this.idSource, storage.changes, this.outbound)]),
    ) as Record<Environment, EnvContext>;
  }

  /**
   * DESIGN: ids never repeat across the processes or restarts of one sandbox, `--seed` included.
   * Called when this start found the sandbox already made (another process's, or an earlier run's):
   * its ids then mix in the cryptographic generator's bytes, so they differ from every other start's
   * even at one frozen instant on one seed. A cryptographic stream (no seed) needs nothing more.
   */
  saltIds(): void {
    if (this.options.seed !== null) this.idSource.salt();
  }

  /**
   * Moves the emulator's time and saves where it stands, where the sandbox keeps it: a restart never
   * moves it back and every process of a shared sandbox follows. A save that fails is the caller's
   * error (never an unhandled rejection that ends the process).
   */
  async advanceClock(ms: number): Promise<void> {
    await this.changeClock(() => this.clock.advance(ms));
  }

  /**
   * A change of this process's clock, then its save. Shared state read before the save committed
   * (a `sync` under way: another request's, or one woken by an earlier change) must not put the
   * clock back where it stood: each change moves `clockEpoch` before and after the save, and `sync`
   * applies only what it read within one epoch.
   */
  private async changeClock(change: () => void): Promise<void> {
    this.clockEpoch += 1;
    change();
    try {
      await this.saveClock();
    } finally {
      this.clockEpoch += 1;
    }
  }

  private saveClock(): Promise<void> {
    return this.storage.coordination.clock.save({ mode: this.clock.mode, offsetMs: this.clock.offsetMs(), frozenAt: this.clock.frozenAt() });
  }

  /**
   * What another process of a shared sandbox did, in effect here: its clock moves (by the change
   * feed, and at the start of every request through `sync`) and its resets (this process forgets
   * what it keeps in memory: sends under way, sessions, caches).
   */
  followSandbox(): void {
    const changes = this.storage.changes;
    changes.on('clock', () => void this.sync());
    changes.on('reset', () => void this.sync());
  }

  /**
   * The sandbox's shared state read and applied (a server database only: one process on SQLite
   * is the whole sandbox, and this answers at once).
   */
  sync(): MaybePromise<void> {
    const epoch = this.clockEpoch;
    const state = this.storage.coordination.sharedState();
    if (state === null) return;
    return whenReady(state, (s) => this.adoptShared(s, epoch));
  }

  /** Where the clock's changes stand now: hand it to `adoptShared` with shared state read after this call. */
  syncEpoch(): number {
    return this.clockEpoch;
  }

  /**
   * Shared state read elsewhere (an API request's admission, api/env-plugin.ts) applied as `sync`
   * applies its own read; `epoch` is `syncEpoch()` taken before the read.
   */
  adoptShared(s: SharedState | null, epoch: number): void | Promise<void> {
    // Read across a change of this process's own (an advance, a reset): stale, and the change's
    // own notification brings the next read.
    if (s === null || epoch !== this.clockEpoch) return;
    if (s.clock) this.clock.adopt(s.clock);
    if (s.generation !== this.generation) {
      this.generation = s.generation;
      return this.runResetHooks();
    }
  }

  private async runResetHooks(): Promise<void> {
    for (const hook of this.resetHooks) await hook();
  }

  /** A restore's demo stores become the ones reset brings back and a restart shows (saved with `--data`). */
  async adoptSeeds(seeds: SeededStore[]): Promise<void> {
    this.seeds = seeds;
    await this.storage.coordination.seeds.save(seeds);
  }

  env(name: Environment): EnvContext {
    return this.envs[name];
  }

  /**
   * The environment that holds a store, integration or order id, if any: looked up only in `within`
   * when authorization resolved an environment (a store token's: DESIGN, every handler acts in the
   * environment that authorization resolved), else in both (the admin's calls; ids never repeat
   * across the environments of one sandbox). Issue 24: "the first environment that has the id" let a
   * test store's token act on a live store of the same id.
   */
  async envOf(within: Environment | null, find: (env: EnvContext) => Promise<unknown>): Promise<EnvContext | undefined> {
    if (within !== null) return (await find(this.envs[within])) ? this.envs[within] : undefined;
    // The admin's calls: the environment of the last id found first. An id is in one environment at
    // most, so the answer is the same in either order, and a sandbox's admin mostly works in one of
    // them: one read instead of two (issue 25: each is a round trip to the server on PostgreSQL).
    const first = this.envs[this.lastFound];
    if (await find(first)) return first;
    for (const env of Object.values(this.envs)) {
      if (env === first || !(await find(env))) continue;
      this.lastFound = env.name;
      return env;
    }
    return undefined;
  }

  /** The environment where the admin's last lookup found its id (`envOf`). */
  private lastFound: Environment = ENVIRONMENTS[0];

  onReset(fn: () => void | Promise<void>): void {
    this.resetHooks.push(fn);
  }

  onClose(fn: () => void | Promise<void>): void {
    this.closeHooks.push(fn);
  }

  /**
   * Everything but the tables back to the start (the clock, faults, chaos, rate windows,
   * homologation, what the services keep in memory): after a reset (stores/seed.ts, resetToSeeds),
   * or a restore that replaced the tables.
   */
  async resetAround(): Promise<void> {
    await this.changeClock(() => this.clock.reset());
    await this.storage.coordination.reset();
    const state = await this.storage.coordination.sharedState();
    if (state) this.generation = state.generation;
    await this.runResetHooks();
  }

  async close(): Promise<void> {
    for (const hook of this.closeHooks) await hook();
    await this.storage.close();
  }
}
