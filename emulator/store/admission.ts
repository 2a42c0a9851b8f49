import type { Environment } from '../../src/contract/store.js';
import type { AuthRecords } from '../stores/repository.js';
import type { HistoryRecord, OrderRecord } from '../orders/repository.js';
import type { SharedState, WindowHit } from './coordination.js';

/**
 * What an API request reads of a shared sandbox before its route runs (spec: Authentication,
 * Limits), asked of a server database in ONE statement (issue 25): the shared state (clock, reset
 * generation, whether faults exist), the IP's authentication failures, the presented credential's
 * records, the integration's request-window hit, and the order GET /orders/{id} reads. The embedded
 * storage has no admissions: one process answers each question at once from what it holds.
 *
 * The environment's pipeline (api/env-plugin.ts) still asks every question in its order (faults →
 * IP block → credential → rate limit); each is answered from the admission when it is the one the
 * admission answered, else by its own query (a fault exists, the credential was refused here).
 */
export interface Admissions {
  admit(request: AdmitRequest): Promise<Admission>;
}

export interface AdmitRequest {
  environment: Environment;
  /** The presented credential (`Bearer key.secret` of this environment), or null when there is none. */
  credential: { keyId: string; digest: Buffer } | null;
  /** The caller's address (the per-IP authentication-failure window; asked when limits are on). */
  ip: string;
  limits: boolean;
  /** The real time now (the sandbox's clock is applied to it in the statement). */
  realNow: number;
  /** This process's emulator time, used while the sandbox has saved no clock. */
  now: number;
  /** GET /orders/{id}: the order to read with its history, or null. */
  orderId: string | null;
}

export interface Admission {
  /** The sandbox's shared state, read in the same snapshot as the rest. */
  shared: SharedState;
  /** Whether the IP used its authentication failures of the minute (null: limits off, not asked). */
  blocked: boolean | null;
  /** The presented credential's records (undefined: no such credential, or none presented). */
  records: AuthRecords | undefined;
  /**
   * The integration's request hit, counted only when no fault exists, the IP is not blocked and the
   * credential is usable (its secret's digest, not revoked, not expired at the sandbox's time);
   * null when not counted (the pipeline then counts it itself if the request is admitted).
   */
  hit: WindowHit | null;
  /** The order asked for with its history (undefined: none of that id, or none asked). */
  order: { order: OrderRecord; history: HistoryRecord[] } | undefined;
}
