import { join } from 'node:path';
import { createClock, type Clock, type ClockMode } from './clock.js';
import { loadClockOffset, saveClockOffset } from './store/sqlite/clock-file.js';
import { openDatabase } from './store/sqlite/open.js';
import { createEnvContext, type EnvContext } from './context.js';
import { Faults } from './faults.js';
import { WindowCounter } from './http/rate-limit.js';
import { LIMITS } from '../src/contract/limits.js';
import { cryptoRandom, seededRandom } from '../src/contract/random.js';
import { ENVIRONMENTS, type Environment } from '../src/contract/store.js';
import { loadOrCreateSeeds, applySeeds, saveSeeds, type SeededStore } from './stores/seed.js';
import { resetDatabase } from './store/sqlite/reset.js';
import { OutboundGuard } from './net/outbound.js';
import { REQUEST_TIMEOUT_MS } from '../src/server/timeouts.js';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** Folder for the databases; ignored with `memory`. */
  data?: string;
  memory?: boolean;
  clock?: ClockMode;
  limits?: boolean;
  seed?: number;
  adminToken?: string;
  /** Log requests to stderr. */
  logger?: boolean;
  /** Where the log goes instead of stderr (tests). */
  logStream?: NodeJS.WritableStream;
  /** TEST-ONLY: the webhook response timeout in ms (the spec's 10 s by default); lets tests of hanging receivers run fast. */
  webhookTimeoutMs?: number;
  /** More names the emulator answers to (`--allowed-host`); see emulator/http/host-check.ts. */
  allowedHosts?: string[];
  /**
   * TEST-ONLY: the time to receive a whole request (headers and body), 30 s by default; headers get
   * at most the same. Lets tests of stalled bodies run fast.
   */
  requestTimeoutMs?: number;
}

export interface ResolvedOptions {
  port: number;
  host: string;
  data: string | null;
  clock: ClockMode;
  limits: boolean;
  seed: number | null;
  adminToken: string | null;
  logger: boolean;
  logStream: NodeJS.WritableStream | null;
  webhookTimeoutMs: number;
  allowedHosts: string[];
  requestTimeoutMs: number;
}


export function resolveOptions(o: EmulatorOptions = {}): ResolvedOptions {
  return {
    port: o.port ?? 4010,
    host: o.host ?? '127.0.0.1',
    data: o.memory ? null : (o.data ?? join('.merchant-kit', 'emulator')),
    clock: o.clock ?? 'system',
    limits: o.limits ?? true,
    seed: o.seed ?? null,
    adminToken: o.adminToken ?? null,
    logger: o.logger ?? false,
    logStream: o.logStream ?? null,
    webhookTimeoutMs: o.webhookTimeoutMs ?? LIMITS.webhookTimeoutMs,
    allowedHosts: o.allowedHosts ?? [],
    requestTimeoutMs: o.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
  };
}

/** `http://host:port`, with an IPv6 host in brackets. */
export function baseUrl(host: string, port: number): string {
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** Hooks that parts of the emulator register to take part in reset and shutdown. */
export interface Lifecycle {
  onReset(fn: () => void): void;
  onClose(fn: () => void | Promise<void>): void;
}

/** The whole emulated service: one clock, two environments, the sandbox tools' state. */
export class Emulator implements Lifecycle {
  readonly clock: Clock;
  readonly envs: Record<Environment, EnvContext>;
  readonly faults = new Faults();
  readonly requestLimiter = new WindowCounter(LIMITS.requestsPerMinute);
  readonly authFailureLimiter = new WindowCounter(LIMITS.authFailuresPerMinute);
  readonly batchLimiter = new WindowCounter(LIMITS.batchesPerMinute);
  /** The demo stores that reset brings back and the ready line shows (a restore replaces them). */
  seeds: SeededStore[];
  /** Where webhook deliveries and image downloads may connect (never the emulator itself). */
  readonly outbound = new OutboundGuard();
  /**
   * The emulator's own base URL (links it hands out, such as `tracking_url`, never come from the
   * client's Host header). startEmulator() sets the real one after listen; until then the options'.
   */
  publicUrl: string;
  private readonly resetHooks: (() => void)[] = [];
  private readonly closeHooks: (() => void | Promise<void>)[] = [];

  constructor(readonly options: ResolvedOptions) {
    this.publicUrl = baseUrl(options.host, options.port);
    this.clock = createClock(options.clock, Date.now, loadClockOffset(options.data));
    this.clock.onAdvance(() => saveClockOffset(options.data, this.clock.offsetMs()));
    const random = options.seed === null ? cryptoRandom : seededRandom(options.seed);
    const envs: Partial<Record<Environment, EnvContext>> = {};
    try {
      for (const name of ENVIRONMENTS) {
        const db = openDatabase(options.data ? join(options.data, `${name}.sqlite`) : null);
        envs[name] = createEnvContext(name, db, this.clock, random, this.outbound);
      }
      this.envs = envs as Record<Environment, EnvContext>;
      this.seeds = loadOrCreateSeeds(options.data, this.envs);
    } catch (error) {
      // A damaged database or seed file refuses the start: what was opened is closed (tests start many).
      for (const env of Object.values(envs)) env.db.close();
      throw error;
    }
    for (const env of Object.values(this.envs)) {
      // A request cut off by a crash never finished: its key may be used again (spec: Idempotency 4).
      env.db.prepare("DELETE FROM idempotency_keys WHERE state = 'processing'").run();
    }
  }

  /** A restore's demo stores become the ones reset brings back and a restart shows (saved with `--data`). */
  adoptSeeds(seeds: SeededStore[]): void {
    this.seeds = seeds;
    saveSeeds(this.options.data, seeds);
  }

  env(name: Environment): EnvContext {
    return this.envs[name];
  }

  /** Finds which environment holds a store, integration or order id. */
  envOf(find: (env: EnvContext) => unknown): EnvContext | undefined {
    return Object.values(this.envs).find((env) => find(env));
  }

  onReset(fn: () => void): void {
    this.resetHooks.push(fn);
  }

  onClose(fn: () => void | Promise<void>): void {
    this.closeHooks.push(fn);
  }

  /** DESIGN: back to the seeded state; the ready line's credentials stay valid. */
  reset(): void {
    this.clock.reset();
    saveClockOffset(this.options.data, 0);
    this.faults.clear();
    this.requestLimiter.clear();
    this.authFailureLimiter.clear();
    this.batchLimiter.clear();
    for (const env of Object.values(this.envs)) resetDatabase(env.db);
    applySeeds(this.envs, this.seeds);
    for (const hook of this.resetHooks) hook();
  }

  async close(): Promise<void> {
    for (const hook of this.closeHooks) await hook();
    for (const env of Object.values(this.envs)) env.db.close();
  }
}
