import type { z } from 'zod';
import type { Endpoint } from '../contract/endpoint.js';

// Request and response types of a call, read from its endpoint row: the contract's zod schemas are the
// only schemas (`z.input` of what the caller sends, `z.output` of what the server answers).

/** Any endpoint row of `src/contract`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEndpoint = Endpoint<any, any, any, any>;

/**
 * Schemas a row does not declare are inferred as the bare `z.ZodType`, whose input is `unknown`; so are
 * all schemas of a row typed as the plain `Endpoint` (an element of `ALL_ENDPOINTS`). Both accept `Loose`.
 */
type Declared<S extends z.ZodType, T, Loose> = unknown extends z.input<S> ? Loose : T;

/** Path parameters of the row (`{ order_id: string }`). */
export type ParamsOf<E> = E extends Endpoint<infer P, any, any, any> ? Declared<P, z.input<P>, Record<string, string> | undefined> : never;

/** Request body of the row (`z.input` of its body schema). */
export type BodyOf<E> = E extends Endpoint<any, any, infer B, any> ? Declared<B, z.input<B>, unknown> : never;

/** The whole success body of the row (the envelope: `data`, and `next_cursor`/`has_more` on lists). */
export type ResponseOf<E> = E extends Endpoint<any, any, any, infer R> ? z.output<R> : never;

/** The envelope's `data`: the resource, or the array of a list. */
export type DataOf<E> = ResponseOf<E> extends { data: infer D } ? D : unknown;

/** One item of a list endpoint. */
export type ItemOf<E> = DataOf<E> extends readonly (infer T)[] ? T : never;

/**
 * A query value as the caller may give it: the schema's text form (`'pending,accepted'`), or the
 * parsed form it stands for (`['pending', 'accepted']`, `true`, `50`), which the client writes as text.
 */
type QueryValue<I, O> =
  | (unknown extends I ? string : I)
  | (NonNullable<O> extends readonly (infer T)[] ? readonly T[] : never)
  | (NonNullable<O> extends boolean ? boolean : never)
  | (NonNullable<O> extends number ? number : never);

type QueryInput<Q extends z.ZodType> = {
  [K in keyof z.input<Q>]?: QueryValue<z.input<Q>[K], K extends keyof z.output<Q> ? z.output<Q>[K] : never>;
};

/** Query of the row, with arrays, booleans and numbers accepted where the schema parses text into them. */
export type QueryOf<E> = E extends Endpoint<any, infer Q, any, any> ? Declared<Q, QueryInput<Q>, Record<string, unknown> | undefined> : never;

/** Per-call metadata handed to `onResponse` for every HTTP answer (each attempt, success or error). */
export interface ResponseInfo {
  /** The endpoint row's id (`ackOrder`), or `control` for EmulatorControl calls. */
  endpointId: string;
  method: string;
  /** Path and query as sent, relative to the base URL. */
  path: string;
  status: number;
  requestId: string | null;
  /** `Idempotent-Replay: true`: the server returned the stored answer of an earlier request. */
  replayed: boolean;
  /** 1 for the first attempt. */
  attempt: number;
  idempotencyKey: string | null;
  durationMs: number;
  headers: Record<string, string>;
}

/** What `onRetry` receives before the client waits and repeats a call. */
export interface RetryInfo {
  endpointId: string;
  method: string;
  path: string;
  /** The retry about to happen: 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** The failure being retried (status 0 for a network failure). */
  error: import('./errors.js').ApiError;
  idempotencyKey: string | null;
}

/** Options every method takes as its last argument. */
export interface CallOptions {
  /** Sent as `Idempotency-Key`; generated when the row needs one and none is given. Kept on every retry. */
  idempotencyKey?: string;
  /** Cancels the call, including a pending retry wait; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with the metadata of every HTTP answer of this call (status, request id, replay). */
  onResponse?: (info: ResponseInfo) => void;
  /** Overrides the client's `maxRetries` for this call (0: a single attempt). */
  maxRetries?: number;
}

/** Everything `client.request()` can send. */
export interface RequestOptions<E> extends CallOptions {
  params?: ParamsOf<E>;
  query?: QueryOf<E>;
  body?: BodyOf<E>;
}

/** The result of `client.request()`: the envelope's `data`, the whole body and the call's metadata. */
export interface ApiResponse<E> {
  data: DataOf<E>;
  /** The whole parsed body (for lists: `next_cursor`; for the feed: `has_more`, `cursor_expired`). */
  body: ResponseOf<E>;
  status: number;
  headers: Record<string, string>;
  requestId: string | null;
  replayed: boolean;
  /** The Idempotency-Key sent (given or generated), null when none was sent. */
  idempotencyKey: string | null;
  /** How many HTTP attempts the call took (1 without retries). */
  attempts: number;
}
