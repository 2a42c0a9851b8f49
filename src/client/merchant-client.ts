import { inspect } from 'node:util';
import type { Dispatcher } from 'undici';
import { generateIdempotencyKey } from './idempotency.js';
import { Paginator, type Page } from './paginator.js';
import type { BackoffOptions } from './retry.js';
import { count, DEFAULT_TIMEOUT_MS, Transport } from './transport.js';
import type { AnyEndpoint, ApiResponse, CallOptions, ItemOf, QueryOf, RequestOptions, ResponseInfo, RetryInfo } from './types.js';
import { fillPath, normalizeBaseUrl, queryString } from './url.js';
import { catalogGroup, entregasGroup, eventsGroup, meCall, ordersGroup, storeGroup, webhookGroup } from './resources.js';

export interface MerchantClientOptions {
  /** The environment's base address: `https://…/v1` (live) or `https://…/sandbox/v1`; an emulator's too. */
  baseUrl: string | URL;
  /** `svk_….svs_…`; sent as `Authorization: Bearer`, kept in a private field, never printed. */
  credential: string;
  /** Retries after 429, 500, 502, 503, 504 and network failures (default 4: waits of 1, 2, 4, 8 s). */
  maxRetries?: number;
  /** Per attempt: no answer (headers and body) within this time is a network failure (default 30 000). */
  timeoutMs?: number;
  /** An undici dispatcher to use instead of the client's own keep-alive Agent (not closed by `close()`). */
  dispatcher?: Dispatcher;
  /** Called before each retry, with the failure and the wait. */
  onRetry?: (info: RetryInfo) => void;
  /** Called with the metadata of every HTTP answer (each attempt): status, request id, replay. */
  onResponse?: (info: ResponseInfo) => void;
  /** `User-Agent` header (default `merchant-kit-client`). */
  userAgent?: string;
  /** Backoff tuning: `{ baseMs: 1000, maxMs: 8000, jitter: 0.2 }` by default; tests shrink it. */
  backoff?: BackoffOptions;
  /** Replaces the wait between retries (tests record the delays instead of sleeping). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * A 429 of an emulator started with `--clock manual` (`X-Emulator-Clock: manual`) is not retried by
   * default: its rate-limit minute ends only when the clock is advanced, so waiting `Retry-After` never
   * helps. `true` retries it anyway, for a caller whose `sleep` advances the clock.
   */
  retryManualClockLimits?: boolean;
}

export const DEFAULT_MAX_RETRIES = 4;
export { DEFAULT_TIMEOUT_MS };

/**
 * Typed client of the merchant API v1: one method per endpoint of the spec, types read from the
 * endpoint rows of `src/contract`. Reuses connections (keep-alive) until `close()`.
 *
 * ```ts
 * const client = new MerchantClient({ baseUrl: 'http://127.0.0.1:4010/sandbox/v1', credential });
 * for await (const order of client.orders.list({ status: ['pending'] })) console.log(order.number);
 * ```
 */
export class MerchantClient {
  readonly #credential: string;
  readonly #transport: Transport;
  readonly baseUrl: string;

  readonly store: ReturnType<typeof storeGroup>;
  readonly catalog: ReturnType<typeof catalogGroup>;
  readonly orders: ReturnType<typeof ordersGroup>;
  readonly events: ReturnType<typeof eventsGroup>;
  readonly webhook: ReturnType<typeof webhookGroup>;
  readonly entregas: ReturnType<typeof entregasGroup>;

  constructor(options: MerchantClientOptions) {
    if (typeof options.credential !== 'string' || options.credential.trim() === '') {
      throw new TypeError('MerchantClient needs a credential (svk_….svs_…)');
    }
    // Printable ASCII without spaces: anything else could not travel in a header (the value is not shown).
    if (!/^[\x21-\x7e]+$/.test(options.credential.trim())) throw new TypeError('The credential has characters a credential cannot have');
    this.#credential = options.credential.trim();
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.#transport = new Transport({
      baseUrl: this.baseUrl,
      authorization: () => `Bearer ${this.#credential}`,
      maxRetries: count(options.maxRetries, DEFAULT_MAX_RETRIES),
      timeoutMs: options.timeoutMs,
      userAgent: options.userAgent ?? 'merchant-kit-client',
      dispatcher: options.dispatcher,
      backoff: options.backoff,
      sleep: options.sleep,
      onRetry: options.onRetry,
      onResponse: options.onResponse,
      retryManualClockLimits: options.retryManualClockLimits,
    });
    this.store = storeGroup(this);
    this.catalog = catalogGroup(this);
    this.orders = ordersGroup(this);
    this.events = eventsGroup(this);
    this.webhook = webhookGroup(this);
    this.entregas = entregasGroup(this);
  }

  /** `live` or `test`, read from the credential's prefix (`svk_live_…`); null when it has neither. */
  get environment(): 'live' | 'test' | null {
    const match = /^svk_(live|test)_/.exec(this.#credential);
    return match ? (match[1] as 'live' | 'test') : null;
  }

  /** GET /me — the integration's context (store, scopes, settings, environment). */
  me(options?: CallOptions) {
    return meCall(this, options);
  }

  /**
   * Calls any endpoint row (`ALL_ENDPOINTS`, or a named row such as `ackOrder`) and returns the
   * envelope's `data` with the whole body and the call's metadata (status, headers, request id,
   * replay). Adds an Idempotency-Key when the row takes one and none is given. Rejects with ApiError.
   * @example
   * const res = await client.request(ackOrder, { params: { order_id }, body: { external_id: 'ERP-1' } });
   * console.log(res.status, res.requestId, res.replayed, res.data.integration.ack_status);
   */
  async request<E extends AnyEndpoint>(endpoint: E, options: RequestOptions<E> = {}): Promise<ApiResponse<E>> {
    // Only `path`, `idempotency`, `id` and `method` of the row are read: in the CLI's build the rows
    // the client's groups pass hold nothing else (no zod schema: tsup.config.ts, clientRoutes).
    const path = fillPath(endpoint.path, options.params as Record<string, unknown> | undefined) + queryString(options.query as Record<string, unknown> | undefined);
    // Optional keys are generated too, so that a retried PATCH or POST can never apply twice.
    const idempotencyKey = options.idempotencyKey ?? (endpoint.idempotency === 'none' ? null : generateIdempotencyKey());
    const result = await this.#transport.send({
      endpointId: endpoint.id,
      method: endpoint.method,
      path,
      body: options.body,
      idempotencyKey,
      maxRetries: options.maxRetries,
      signal: options.signal,
      onResponse: options.onResponse,
    });
    const body = result.body as ApiResponse<E>['body'];
    return {
      data: (body as { data?: unknown } | undefined)?.data as ApiResponse<E>['data'],
      body,
      status: result.status,
      headers: result.headers,
      requestId: result.requestId,
      replayed: result.replayed,
      idempotencyKey,
      attempts: result.attempts,
    };
  }

  /**
   * A cursor list of a row whose response is `{data: [...], next_cursor}`, read lazily page by page.
   * @example for await (const order of client.paginate(listOrders, { status: ['pending'] })) console.log(order.id);
   */
  paginate<E extends AnyEndpoint>(endpoint: E, query?: QueryOf<E>, options: CallOptions = {}): Paginator<ItemOf<E>> {
    const base = (query ?? {}) as Record<string, unknown>;
    const fetchPage = async (cursor: string | undefined): Promise<Page<ItemOf<E>>> => {
      const pageQuery = (cursor === undefined ? base : { ...base, cursor }) as unknown as QueryOf<E>;
      const response = await this.request(endpoint, { ...options, query: pageQuery });
      const envelope = response.body as { data?: unknown; next_cursor?: unknown };
      return {
        data: (Array.isArray(envelope?.data) ? envelope.data : []) as ItemOf<E>[],
        nextCursor: typeof envelope?.next_cursor === 'string' ? envelope.next_cursor : null,
        status: response.status,
        requestId: response.requestId,
      };
    };
    return new Paginator(fetchPage);
  }

  /** Closes the client's connections; calls after close fail. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  /** Never the credential: `{ baseUrl, environment, credential: '[redacted]' }`. */
  toJSON(): { baseUrl: string; environment: 'live' | 'test' | null; credential: string } {
    return { baseUrl: this.baseUrl, environment: this.environment, credential: '[redacted]' };
  }

  [inspect.custom](): string {
    return `MerchantClient ${inspect(this.toJSON())}`;
  }
}
