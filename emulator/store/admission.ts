import type { Environment } from '../../src/contract/store.js';
import type { EventType } from '../../src/contract/events.js';
import type { FaultView } from '../faults.js';
import type { CredentialRecord, IntegrationRecord, StoreRecord } from '../stores/repository.js';
import type { ProductPageArgs } from '../catalog/repository.js';
import type { EventBytes, EventRecord, HistoryRecord, OrderRecord } from '../orders/repository.js';
import type { SharedState, WindowHit, WindowKind } from './coordination.js';
import type { MaybePromise } from './maybe.js';

/**
 * What an API request reads of the sandbox before it runs (spec: Authentication, Limits): the shared
 * state (clock, reset generation), injected faults, the IP's authentication failures, the
 * credential's records and the integration's request window — and what its route will read. One
 * process on the embedded database answers each at once from what it holds. A server database answers
 * them in one round trip (issue 25): the adapter reads everything the request is expected to ask,
 * and each question below is answered from that read when it is the one expected, or by a query of
 * its own when not (a fault exists, the records changed, the clock moved meanwhile).
 */
export interface Admission {
  /** The sandbox's shared state as read with the request; null where nothing is shared. */
  readonly shared: SharedState | null;
  /** The first injected fault matching the call, its use taken (FaultStore.take). */
  takeFault(method: string, path: string): MaybePromise<FaultView | undefined>;
  /** Whether `key` used its allowance of `kind` in the window holding `now` (RateWindows.exhausted). */
  exhausted(kind: WindowKind, key: string, now: number): MaybePromise<boolean>;
  /** The credential of `keyId` with its integration and store, or undefined when any is missing. */
  credential(keyId: string): MaybePromise<AuthRecords | undefined>;
  /** Counts one hit (RateWindows.hit). */
  hit(kind: WindowKind, key: string, now: number): MaybePromise<WindowHit>;
  /** What the route's plan read (null: no plan, or the adapter reads at the route's own call). */
  readonly prefetched: Prefetched | null;
}

export interface AuthRecords {
  credential: CredentialRecord;
  integration: IntegrationRecord;
  store: StoreRecord;
}

/** What the admission is asked to read. */
export interface AdmitRequest {
  environment: Environment;
  /** The presented credential (`Bearer key.secret` of this environment), or null when there is none. */
  credential: { keyId: string; secret: string } | null;
  /** The caller's address (the per-IP authentication-failure window). */
  ip: string;
  /** Whether the spec's limits are on (the IP's window is then asked before the credential). */
  limits: boolean;
  /** The emulator's time now, as this process knows its clock. */
  now: number;
  /**
   * What the route will read, given the records this process keeps for the credential (the plan of a
   * feed page needs the integration's scopes): a server database reads it in the same round trip.
   */
  plan: ((kept: AuthRecords | undefined) => ReadPlan | null) | null;
}

/**
 * A read a route announces. `known` is the stamp of what the caller keeps (its order text): the order
 * is read whole only when it changed since.
 */
export type ReadPlan =
  | { kind: 'order'; orderId: string; known: string | null }
  | { kind: 'products'; args: ProductPageArgs }
  | { kind: 'feed'; args: FeedPlanArgs };

/** A feed page as GET /events reads it when its cursor is good (feed.ts checks the cursor's event). */
export interface FeedPlanArgs {
  integrationId: string;
  /** The cursor's position and time, or null for the first page. */
  after: { seq: number; createdAt: number } | null;
  cutoff: number;
  types: EventType[];
  /** Rows to read (the page's limit plus one, to tell has_more). */
  limit: number;
}

export type Prefetched =
  /** The order's stamp (it moves with every write to the order or its history); the records when it moved, or when nothing was known. */
  | { kind: 'order'; orderId: string; stamp: string; order?: OrderRecord; history?: HistoryRecord[] }
  /** No such order. */
  | { kind: 'order'; orderId: string; stamp: null }
  /** The page's body, for exactly these arguments. */
  | { kind: 'products'; args: ProductPageArgs; body: Buffer }
  /** The cursor's event (null: none at that position) and the page read after it. */
  | { kind: 'feed'; args: FeedPlanArgs; cursorEvent: Pick<EventRecord, 'seq' | 'integrationId' | 'createdAt'> | null; rows: EventBytes[] };

/** The storage's side: one admission per request. */
export interface Admissions {
  admit(request: AdmitRequest): MaybePromise<Admission>;
}

/** The same arguments in the same order: a products page's key (a prefetched page answers only its own arguments). */
export function productPageKey(a: ProductPageArgs): string {
  return JSON.stringify([a.integrationId, a.storeId, a.limit, a.after, a.categoryExternalId, a.since, a.active]);
}

/** Whether a prefetched feed page answers these arguments. */
export function sameFeedArgs(a: FeedPlanArgs, b: FeedPlanArgs): boolean {
  return a.integrationId === b.integrationId && a.cutoff === b.cutoff && a.limit === b.limit && (a.after?.seq ?? 0) === (b.after?.seq ?? 0) &&
    (a.after?.createdAt ?? 0) === (b.after?.createdAt ?? 0) && a.types.length === b.types.length && a.types.every((t, i) => t === b.types[i]);
}
