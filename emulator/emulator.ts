import { join } from 'node:path';
import { LIMITS } from '../src/contract/limits.js';
import { createClock, type Clock, type ClockMode } from './clock.js';
import { createEnvContext, type EnvContext } from './context.js';
import { cryptoRandom, seededRandom } from '../src/contract/random.js';
import { ENVIRONMENTS, type Environment } from '../src/contract/store.js';
import { loadOrCreateSeeds, applySeeds, type SeededStore } from './stores/seed.js';
import { OutboundGuard } from './net/outbound.js';
import type { StoragePort, Outbox } from './store/port.js';
import type { EmitContext } from './store/emit-context.js';
import { SqliteStorage } from './store/sqlite/index.js';
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
  readonly outbound = new OutboundGuard();
  /** The webhooks aggregate's outbox, set when its service starts (every emitted event passes through it). */
  outbox: Outbox | null = null;
  /**
   * The emulator's own base URL (links it hands out, such as `tracking_url`, never come from the
   * client's Host header). startEmulator() sets the real one after listen; until then the options'.
   */
  publicUrl: string;
  private readonly resetHooks: (() => void | Promise<void>)[] = [];
  private readonly closeHooks: (() => void | Promise<void>)[] = [];

  /** Opens the storage, the clock where it was left, and the demo stores. */
  static async open(options: ResolvedOptions): Promise<Emulator> {
    return Emulator.openWith(options, (context) => new SqliteStorage({ dataDir: options.data }, context));
  }

  /** The same on a storage of the caller's making (a restore's staging folder, another adapter). */
  static async openWith(options: ResolvedOptions, openStorage: (context: EmitContext) => StoragePort | Promise<StoragePort>): Promise<Emulator> {
    let emulator: Emulator | undefined;
    const context: EmitContext = {
      clock: () => emulator!.clock,
      ids: (env) => emulator!.envs[env].ids,
      outbox: () => emulator?.outbox ?? null,
    };
    const storage = await openStorage(context);
    try {
      const saved = await storage.coordination.clock.load();
      emulator = new Emulator(options, storage, saved?.offsetMs ?? 0);
      emulator.seeds = await storage.coordination.seeds.once(() => loadOrCreateSeeds(emulator!));
    } catch (error) {
      await storage.close();
      throw error;
    }
    return emulator;
  }

  private constructor(
    readonly options: ResolvedOptions,
    readonly storage: StoragePort,
    clockOffsetMs: number,
  ) {
    this.publicUrl = baseUrl(options.host, options.port);
    this.clock = createClock(options.clock, Date.now, clockOffsetMs);
    const random = options.seed === null ? cryptoRandom : seededRandom(options.seed);
    this.envs = Object.fromEntries(
      ENVIRONMENTS.map((name) => [name, createEnvContext(name, storage.env(name), this.clock, random, storage.changes, this.outbound)]),
    ) as Record<Environment, EnvContext>;
  }

  /** A restore's demo stores become the ones reset brings back and a restart shows (saved with `--data`). */
  async adoptSeeds(seeds: SeededStore[]): Promise<void> {
    this.seeds = seeds;
    await this.storage.coordination.seeds.save(seeds);
  }

  /**
   * Moves the emulator's time and saves where it stands, so that a restart never moves it back. A
   * save that fails is the caller's error (never an unhandled rejection that ends the process).
   */
  async advanceClock(ms: number): Promise<void> {
    this.clock.advance(ms);
    await this.saveClock();
  }

  private saveClock(): Promise<void> {
    return this.storage.coordination.clock.save({ mode: this.clock.mode, offsetMs: this.clock.offsetMs(), frozenAt: 0 });
  }

  env(name: Environment): EnvContext {
    return this.envs[name];
  }

  /** The environment that holds a store, integration or order id (ids are looked up in both), if any. */
  async envOf(find: (env: EnvContext) => Promise<unknown>): Promise<EnvContext | undefined> {
    for (const env of Object.values(this.envs)) if (await find(env)) return env;
    return undefined;
  }

  onReset(fn: () => void | Promise<void>): void {
    this.resetHooks.push(fn);
  }

  onClose(fn: () => void | Promise<void>): void {
    this.closeHooks.push(fn);
  }

  /** DESIGN: back to the seeded state; the ready line's credentials stay valid. */
  async reset(): Promise<void> {
    await this.storage.admin.reset();
    await this.resetAround();
    await applySeeds(this, this.seeds);
  }

  /**
   * Everything but the tables back to the start (the clock, faults, chaos, rate windows,
   * homologation, what the services keep in memory): after a reset, or a restore that replaced the
   * tables.
   */
  async resetAround(): Promise<void> {
    this.clock.reset();
    await this.saveClock();
    await this.storage.coordination.reset();
    for (const hook of this.resetHooks) await hook();
  }

  async close(): Promise<void> {
    for (const hook of this.closeHooks) await hook();
    await this.storage.close();
  }
}
