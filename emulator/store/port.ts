import type { Environment } from '../../src/contract/store.js';
import type { EventType } from '../../src/contract/events.js';
import type { StoresRepository, IntegrationsRepository, CredentialsRepository, AuthRecords } from '../stores/repository.js';
import type { CatalogRepository, ProductPageArgs, SnapshotsRepository } from '../catalog/repository.js';
import type { OrdersRepository, EventsRepository, EventRecord, EventData, FeedAfter, HistoryRecord, OrderRecord } from '../orders/repository.js';
import type { WebhooksRepository } from '../webhooks/repository.js';
import type { EntregasRepository } from '../entregas/repository.js';
import type { AccessRequestsRepository } from '../access/repository.js';
import type { CertificateLedger } from '../certificates/repository.js';
import type { ChangeFeed } from './changes.js';
import type { Coordination, SharedState, WindowHit, WorkClaim } from './coordination.js';
import type { Admin } from './admin.js';

/**
 * The storage port: everything the emulator keeps, behind one interface. The embedded adapter
 * (adapters/sqlite) keeps it in two SQLite files or in memory; the server adapter (adapters/postgres) in a
 * PostgreSQL database that several emulator processes share. Only the adapters import a driver or
 * hold SQL; the aggregates (orders, catalog, webhooks, entregas, stores) see records.
 */
export interface StoragePort {
  /**
   * True when several processes may share this storage (a server database): the sandbox's clock,
   * resets and due work are then read from it, never assumed to be this process's alone. False for
   * one process's own storage (the embedded database).
   */
  readonly shared: boolean;
  /** One environment's state (each environment has its own database or schema). */
  env(name: Environment): EnvStore;
  /** What changed, for caches, the panel's live updates and resets. */
  readonly changes: ChangeFeed;
  /** What several processes of one sandbox must share beyond the repositories. */
  readonly coordination: Coordination;
  /** Migrations, reset, dump and restore (bundles), integrity. */
  readonly admin: Admin;
  /**
   * The certificates' ledger: signing keys, certificates and revocations, the sandbox's rather than an
   * environment's (never in a bundle; a reset or a restore leaves it as it is).
   */
  readonly certificates: CertificateLedger;
  /**
   * A server database's one-statement admission of an API request (the Admissions below); absent where each
   * question is answered at once (the embedded database).
   */
  readonly admissions?: Admissions;
  close(): Promise<void>;
}

/** The repositories of one environment; each returns records (never rows or driver statements). */
export interface Repositories {
  readonly stores: StoresRepository;
  readonly integrations: IntegrationsRepository;
  readonly credentials: CredentialsRepository;
  readonly catalog: CatalogRepository;
  readonly snapshots: SnapshotsRepository;
  readonly orders: OrdersRepository;
  readonly events: EventsRepository;
  readonly webhooks: WebhooksRepository;
  readonly entregas: EntregasRepository;
  /** The integrators' access requests (the test environment's; the live one's stays empty). */
  readonly accessRequests: AccessRequestsRepository;
}

/**
 * One environment. Its repositories used directly read committed data and write one statement at a
 * time; `tx` runs a unit of work that commits whole or not at all.
 */
export interface EnvStore extends Repositories {
  readonly environment: Environment;
  /**
   * Runs `work` in one transaction: every write it makes through `tx` commits together, or none
   * does when it throws. Transactions never nest: a service that takes part in a larger unit of
   * work takes the caller's `tx`. A transaction never waits on the network (no webhook send, no
   * image download inside one).
   *
   * With `claim` (an idempotency key's, `IdempotencyClaims.withWork`) the key is claimed before any
   * of the work's statements takes effect; a claim that is not fresh throws `ClaimAnswered` and the
   * work writes nothing.
   */
  tx<T>(work: (tx: Tx) => Promise<T>, claim?: WorkClaim): Promise<T>;
}

/** A transaction of one environment. */
export interface Tx extends Repositories {
  readonly environment: Environment;
  /** Runs `fn` once the transaction has committed (never when it rolls back), in registration order. */
  afterCommit(fn: () => void): void;
  /**
   * Writes an event for every integration of the store (or only `integrationId`) and, through the
   * outbox, its webhook deliveries, in this transaction: an event is never lost and never emitted for
   * a change that did not commit. Scopes are applied when an event is read (they can change later).
   */
  emit<T extends EventType>(type: T, storeId: string, data: EventData<T>, integrationId?: string): Promise<EventRecord[]>;
}

/**
 * The outbox: called by `emit` for each event it writes, in the same transaction (the webhooks
 * aggregate writes the delivery rows there). Answers how many deliveries it queued.
 */
export type Outbox = (tx: Tx, event: EventRecord) => Promise<number>;

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
  /** The route's read made in the same statement (GET /orders/{id}, /catalog/products, /events), or null. */
  read: AdmitRead | null;
}

/**
 * A route's read folded into its admission: the order GET /orders/{id} answers, the products page, the
 * feed page. The page reads take the credential's integration and store (and the feed its scopes)
 * from the records the same statement reads; the route uses the answer only when its own arguments
 * and caller are the ones it was read for (`sameProductPage`, `sameFeedPage`).
 */
export type AdmitRead =
  | { kind: 'order'; orderId: string }
  /** Only the order's status (POST /orders/{id}/status: the homologation recorder's starting point). */
  | { kind: 'orderStatus'; orderId: string }
  | { kind: 'products'; page: ProductPageQuery }
  | { kind: 'feed'; page: FeedPageQuery };

/** GET /catalog/products's arguments but the caller's (the statement takes them from the credential's records). */
export type ProductPageQuery = Omit<ProductPageArgs, 'integrationId' | 'storeId'>;

/** GET /events's arguments but the caller's. */
export interface FeedPageQuery {
  /** The cursor's position (null: from the start). */
  cursor: { seq: number; createdAt: number } | null;
  /** The page's size (the statement reads one more, to tell `has_more`). */
  limit: number;
  /** The types asked for (null: every type); the statement keeps those the integration's scopes allow. */
  types: readonly EventType[] | null;
}

/** A page read by an admission, with the integration it was read for. */
export interface AdmittedProductPage {
  integrationId: string;
  query: ProductPageQuery;
  /** The page's response body. */
  body: Buffer;
}

export interface AdmittedFeedPage extends FeedAfter {
  integrationId: string;
  query: FeedPageQuery;
  /** The sandbox's time the statement judged retention at. */
  now: number;
  /**
   * The integration's newest event within retention, of any type (null: none), read in the same
   * snapshot when the page from the start is empty (`next_cursor` of such a page); undefined: not read.
   */
  newest?: { seq: number; createdAt: number } | null;
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
  /** The status of the order asked for (`status` null: no order of that id; undefined: none asked). */
  orderStatus?: { orderId: string; status: string | null };
  /** The products page asked for (undefined: none asked, or no such credential). */
  products?: AdmittedProductPage;
  /** The feed page asked for (undefined: none asked, or no such credential). */
  feed?: AdmittedFeedPage;
}

export const sameProductPage = (a: ProductPageQuery, b: ProductPageQuery): boolean =>
  a.since === b.since && a.after === b.after && a.limit === b.limit && a.categoryExternalId === b.categoryExternalId && a.active === b.active;

export const sameFeedPage = (a: FeedPageQuery, b: FeedPageQuery): boolean =>
  a.limit === b.limit && a.cursor?.seq === b.cursor?.seq && a.cursor?.createdAt === b.cursor?.createdAt &&
  (a.types === null ? b.types === null : b.types !== null && a.types.length === b.types.length && a.types.every((t, i) => t === b.types![i]));
