// What the emulator's observer saw of one integration: the input of each check's `grade` (checks/),
// and what the storage port keeps of it (emulator/store/coordination.ts). Pure data, so graders are
// pure functions with table tests.
import { SIMULATOR_SCENARIOS } from './enums.js';
import type { GradedSettings } from './certificates.js';

/** Small, non-secret facts read from a request body (never the body). */
export type Facts = Record<string, string | number | boolean | null>;

/** One API call of an integration. */
export interface RecordedCall {
  seq: number;
  /**
   * Real time the emulator read the request (ms since the epoch): its first bytes had arrived by
   * then (a busy event loop reads them late).
   */
  at: number;
  /** Real time before which its first bytes cannot have arrived (emulator/homologation/arrival.ts). */
  arrived_after: number;
  /** Real time its answer was sent, at the latest (the response finished). */
  answered_at: number;
  method: string;
  /** Relative to the environment's base path, without the query (`/orders/ord_…/ack`). */
  path: string;
  status: number;
  /** The spec's error code of a non-2xx answer. */
  code: string | null;
  idempotency_key: string | null;
  duration_ms: number;
  /** SHA-256 of the request body's canonical JSON (null without a body). */
  body_sha256: string | null;
  request_id: string;
  facts: Facts | null;
  /** Answered by a fault the observer injected (the request never ran). */
  injected: boolean;
}

export type ProbeKind = 'bad_signature' | 'stale_timestamp' | 'unknown_secret' | 'reserialised' | 'duplicate' | 'out_of_order';

/** One delivery the session sent itself to the integration's webhook. */
export interface ProbeRecord {
  kind: ProbeKind;
  event_id: string;
  sent_at: number;
  /** The receiver's HTTP status; null without an answer. */
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/**
 * Why the session made an order: the three simulator scenarios, the probe order, a situation it
 * arranges (the customer cancels it while pending; the merchant accepts it in the panel), a
 * person's task, or one more order to measure a retry again.
 */
export type SessionScenario = 'delivery' | 'pickup_invoice' | 'unmapped_product' | 'probe' | 'customer_cancels' | 'panel_accepts' | 'task' | 'retry_sample';

/** The three simulator scenarios order reception is about. */
export const RECEPTION_SCENARIOS: readonly SessionScenario[] = SIMULATOR_SCENARIOS;

export interface SessionOrder {
  scenario: SessionScenario;
  order_id: string;
  /** The order's number, as people name it. */
  number: number;
  /** Real time the session made it (ms). */
  created_at: number;
}

/** DESIGN: the task actions (what a person does, published for people and CI drivers). */
export const TASK_ACTIONS = ['reject_order', 'cancel_order', 'mark_unavailable', 'import_after_failure'] as const;
export type TaskAction = (typeof TASK_ACTIONS)[number];

/** A task as the session opened it; its state is graded from the calls (checks/tasks.ts). */
export interface OpenedTask {
  id: string;
  action: TaskAction;
  /** The order it concerns (reject_order, cancel_order, import_after_failure). */
  order_id?: string;
  order_number?: number;
  /** The product it concerns (mark_unavailable). */
  external_id?: string;
  product_name?: string;
  /** Real time it opened (ms); calls before it do not do it. */
  opened_at: number;
  /** A re-issue: the task it replaces (whose order was made final before the task was done). */
  reissue_of?: string;
  /** Replaced by this re-issue. */
  reissued_as?: string;
  /** What happened to the replaced task's order, said first in the instruction. */
  context?: string;
}

/** A regular webhook delivery of an event about a session order. */
export interface SessionDelivery {
  order_id: string;
  event_type: string;
  /** The order's status in the delivered event. */
  order_status: string | null;
  status: string;
  /** The emulator's time of the first successful attempt, if any. */
  succeeded_at: number | null;
  /** Real time the receiver answered that attempt 2xx (null when unknown: not yet, or a manual clock). */
  answered_at: number | null;
  last_response_status: number | null;
}

export interface InjectedFault {
  status: 503 | 429;
  retry_after: number;
  /** The call it answered, once taken. */
  call_seq: number | null;
}

export interface SessionView {
  started_at: number;
  deadline: number;
  orders: SessionOrder[];
  /** The person's tasks opened so far. */
  tasks: OpenedTask[];
  deliveries: SessionDelivery[];
  probes: ProbeRecord[];
  faults: InjectedFault[];
  /** Steps the session could not take (an order it could not make…), in plain words. */
  problems: string[];
  /** Why the session has not made its orders (publish your catalog first…); null once it has. */
  waiting: string | null;
  /** Whether the integration had an active webhook when the session made its orders (null before). */
  webhook: boolean | null;
  /** The probe the session is sending, from the moment it began (what the ERP does meanwhile may come before its answer); null or absent otherwise. */
  sending?: { kind: ProbeKind; sent_at: number } | null;
  /** The session has sent everything it will send. */
  finished: boolean;
  /** Real time its report became complete, frozen from then on; null while it watches. */
  ended_at: number | null;
  /** The last call graded when it ended (later calls are not graded); null while it watches. */
  ended_seq: number | null;
}

/** The integration settings the observer grades by (spec: Integration settings; the certificate names them). */
export type SessionSettings = GradedSettings;

export interface Observation {
  integration_id: string;
  environment: 'test' | 'live';
  scopes: string[];
  calls: RecordedCall[];
  session: SessionView;
  /** Real time of grading. */
  now: number;
  /** The integration's settings now. */
  settings: SessionSettings;
  /** Whether its webhook takes deliveries now (set, active, not paused). */
  webhook_active: boolean;
}
