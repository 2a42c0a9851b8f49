import type { Environment } from '../../src/contract/store.js';
import type { ControlFault } from '../../src/contract/control.js';
import { webhookChaos, type WebhookChaos } from '../../src/contract/webhooks.js';
import { LIMITS } from '../../src/contract/limits.js';
import { ACCESS_LIMITS } from '../../src/contract/access-requests.js';
import type { ClockMode } from '../clock.js';
import type { FaultView } from '../faults.js';
import type { RecordedCall, SessionView, InjectedFault } from '../../src/contract/observation.js';
import type { MaybePromise } from './maybe.js';

/**
 * What the processes of one sandbox share besides the repositories (DESIGN: Storage and the team
 * sandbox). One process on SQLite keeps most of it in memory; on PostgreSQL it lives in tables and
 * every process sees the same. The calls made on every request (`hit`, `takeFault`) may answer at
 * once (MaybePromise).
 */
export interface Coordination {
  /** spec: Limits — fixed-minute windows on the emulator's clock. */
  readonly windows: RateWindows;
  /** spec: Idempotency rules — one claim per (environment, integration, key), with its owner and lease. */
  readonly idempotency: IdempotencyClaims;
  /** spec: Limits — one batch at a time per integration. */
  readonly batches: BatchGate;
  readonly clock: ClockStore;
  readonly faults: FaultStore;
  readonly chaos: ChaosStore;
  readonly homologation: HomologationStore;
  /** The demo stores and their credentials, made once per sandbox and shown by every process's ready line. */
  readonly seeds: SeedStore;
  /**
   * What other processes may have changed since this one last looked: the clock and the reset
   * generation. Read at the start of every request, so that a clock advanced or a reset made on
   * another process is in effect here before this request runs. null: this process is the whole
   * sandbox (nothing to read).
   */
  sharedState(): MaybePromise<SharedState | null>;
  /**
   * Everything shared goes back to its start (the emulator's reset): rate windows, faults, chaos,
   * homologation; the generation moves so that every process resets what it keeps in memory.
   */
  reset(): Promise<void>;
}

export interface SharedState {
  clock: ClockState | null;
  /** Moves with every reset of the sandbox. */
  generation: number;
}

/** One demo store per environment, with the credential the ready line prints. */
export interface SeededStore {
  environment: Environment;
  storeId: string;
  integrationId: string;
  credential: string;
}

export interface SeedStore {
  /** The saved demo stores, or null when none were saved yet (a new sandbox). */
  load(): Promise<SeededStore[] | null>;
  save(seeds: SeededStore[]): Promise<void>;
  /**
   * Runs `make` once for the whole sandbox: the first process to get here makes the seeds while the
   * others wait, then every process reads the same (an exclusive lock on a server database).
   */
  once<T>(make: () => Promise<T>): Promise<T>;
}

export type WindowKind = 'requests' | 'auth_failures' | 'batches' | 'admin_failures' | 'access_requests';

/** spec: Limits — the per-minute allowances of each kind of window (every adapter counts to these). */
export const WINDOW_LIMITS: Record<WindowKind, number> = {
  requests: LIMITS.requestsPerMinute,
  auth_failures: LIMITS.authFailuresPerMinute,
  batches: LIMITS.batchesPerMinute,
  admin_failures: LIMITS.authFailuresPerMinute,
  // DESIGN: The operator's public test environment — the access requests one IP may make a minute.
  access_requests: ACCESS_LIMITS.perIpPerMinute,
};

export interface WindowHit {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

export interface RateWindows {
  /** Counts one hit of `key` in the window that holds `now`. */
  hit(kind: WindowKind, key: string, now: number): MaybePromise<WindowHit>;
  /** Whether `key` has used its allowance in the window that holds `now`, without counting. */
  exhausted(kind: WindowKind, key: string, now: number): MaybePromise<boolean>;
  limit(kind: WindowKind): number;
}

/** A response kept for replays (spec: Idempotency rules 2). */
export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export type Claim =
  /** The key is this request's now: run it, then `finish` or `release`. */
  | { kind: 'fresh' }
  | { kind: 'replay'; response: StoredResponse }
  /** Another request with the key is running (409 request_in_progress, Retry-After). */
  | { kind: 'in_progress' }
  /** The key was used with another request (409 idempotency_conflict). */
  | { kind: 'conflict' };

export interface IdempotencyClaims {
  /**
   * Claims the key for this process, unless a finished answer within retention exists (replay or
   * conflict) or a live claim of another request holds it. A claim whose owner is gone (a process
   * that died) is free again once its lease ran out.
   */
  claim(env: Environment, integrationId: string, key: string, fingerprint: string, now: number): Promise<Claim>;
  finish(env: Environment, integrationId: string, key: string, response: StoredResponse): Promise<void>;
  release(env: Environment, integrationId: string, key: string): Promise<void>;
  /**
   * A server database's (issue 25): the claim taken by the request's unit of work in its first round
   * trip, sent on its connection ahead of its BEGIN and first statement (`EnvStore.tx`), instead of
   * in a round trip of its own. Only for a route whose every effect is in that unit of work.
   */
  withWork?(env: Environment, integrationId: string, key: string, fingerprint: string, now: number): WorkClaim;
}

/**
 * A key's claim that rides with a unit of work (`IdempotencyClaims.withWork`). The claim commits on
 * its own, before the transaction begins, as `claim` would: a concurrent duplicate sees it at once.
 */
export interface WorkClaim {
  /**
   * Sends the claim on `db` (the unit of work's connection, before its BEGIN), unless it was taken
   * already. `refused` is called as soon as the database answers that the key is not this request's,
   * before the answers of the statements sent behind it are seen: the work then sends no other.
   */
  takeOn(db: unknown, refused: () => void): Promise<Claim>;
  /** The claim: as a unit of work took it, or taken now on its own when none did. */
  result(): Promise<Claim>;
  /** The claim once taken; undefined before, or when taking it failed. */
  readonly taken: Claim | undefined;
  /**
   * Set by the route: the request's answer from what the unit of work returned, when it is known
   * then (undefined: the route stores it after the commit). A server database stores it with the
   * work's COMMIT (`answerWrite`): the effect and its answer commit together, no round trip of its own.
   */
  answerOf?: (out: unknown) => StoredResponse | undefined;
  /** The answer the unit of work's COMMIT stored: the route then stores none and sends this one. */
  readonly stored: StoredResponse | undefined;
  /**
   * A server database's: the statement (a prepared statement and its values) that stores
   * `answerOf(out)`, to go before COMMIT (undefined when none).
   */
  answerWrite?(out: unknown): { statement: { name: string; text: string }; values: unknown[] } | undefined;
  /** A server database's: the COMMIT that carried `answerWrite` went through. */
  committed?(): void;
}

/**
 * Thrown by a unit of work whose claim (`WorkClaim`) came back other than fresh: nothing of the work
 * was written, and the request is answered by the claim (replay, conflict, in progress).
 */
export class ClaimAnswered extends Error {
  constructor(readonly claim: Exclude<Claim, { kind: 'fresh' }>) {
    super(`idempotency key ${claim.kind}`);
  }
}

export interface BatchGate {
  /** True when the integration had no batch running (it has one now, this one). */
  acquire(env: Environment, integrationId: string): Promise<boolean>;
  release(env: Environment, integrationId: string): Promise<void>;
}

/** The emulator's time line: `now = (mode === 'manual' ? frozenAt : real now) + offsetMs`. */
export interface ClockState {
  mode: ClockMode;
  offsetMs: number;
  /** The real time a manual clock stands at (before its offset). */
  frozenAt: number;
}

export interface ClockStore {
  /** The saved state, or null when none was saved (a new sandbox). */
  load(): Promise<ClockState | null>;
  save(state: ClockState): Promise<void>;
}

export interface FaultStore {
  add(spec: ControlFault): Promise<FaultView>;
  list(): Promise<FaultView[]>;
  clear(): Promise<number>;
  /** Takes one use of the first fault matching the call and answers it as it was (every process sees the same uses). */
  take(method: string, path: string): MaybePromise<FaultView | undefined>;
}

/** Delivery chaos off: what a sandbox starts with and a reset returns to (every adapter). */
export const NO_CHAOS: WebhookChaos = webhookChaos.parse({});

export interface ChaosStore {
  get(): MaybePromise<WebhookChaos>;
  /**
   * The setting as this process last read it, at once: what a request acts on (every request of a
   * shared sandbox reads it again first) while `get` asks the database after another process changed it.
   */
  current(): WebhookChaos;
  set(chaos: WebhookChaos | null): Promise<void>;
}

/** Calls kept per integration: enough for a long session, bounded so an endless loop cannot eat memory. */
export const RING_SIZE = 5000;

/** The observer's recordings and sessions (DESIGN: Homologation), shared by every process. */
export interface HomologationStore {
  /** Keeps one API call of the integration (its `seq` is given here). */
  record(integrationId: string, call: RecordedCall): MaybePromise<void>;
  calls(integrationId: string): Promise<RecordedCall[]>;
  saveSession(integrationId: string, view: SessionView): Promise<void>;
  session(integrationId: string): Promise<SessionView | null>;
  /** Faults the session keeps for the integration's next idempotent writes. */
  arm(integrationId: string, faults: InjectedFault[]): Promise<void>;
  takeArmed(integrationId: string): MaybePromise<InjectedFault | undefined>;
  /** Forgets the integration's armed faults (its session's report is final). */
  disarm(integrationId: string): Promise<void>;
}
