// What the emulator's observer saw of one integration: the input of each check's `grade`.
// Pure data, so graders are pure functions with table tests.

/** Small, non-secret facts read from a request body (never the body). */
export type Facts = Record<string, string | number | boolean | null>;

/** One API call of an integration. */
export interface RecordedCall {
  seq: number;
  /** Real time the request arrived (ms since the epoch). */
  at: number;
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

export type SessionScenario = 'delivery' | 'pickup_invoice' | 'unmapped_product' | 'probe';

/** A regular webhook delivery of an event about a session order. */
export interface SessionDelivery {
  order_id: string;
  event_type: string;
  status: string;
  /** Real time of the first successful attempt, if any. */
  succeeded_at: number | null;
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
  orders: { scenario: SessionScenario; order_id: string }[];
  deliveries: SessionDelivery[];
  probes: ProbeRecord[];
  faults: InjectedFault[];
  /** Steps the session could not take (no webhook, store closed…), in plain words. */
  problems: string[];
  /** The session has sent everything it will send. */
  finished: boolean;
}

export interface Observation {
  integration_id: string;
  environment: 'test' | 'live';
  scopes: string[];
  calls: RecordedCall[];
  session: SessionView;
  /** Real time of grading. */
  now: number;
}
