// Public surface of the typed client (import from 'merchant-kit' or this file). Names here are stable:
// the CLI, the homologation checks and integrators build on them.

// The API client and its options.
export { MerchantClient, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type MerchantClientOptions } from './merchant-client.js';
export type { FeedPage, EntregaActionBody } from './resources.js';

// The one error class, and the codes the client itself produces (status 0 or a non-JSON answer).
export {
  ApiError, NETWORK_ERROR, INVALID_RESPONSE, INVALID_REQUEST, CLIENT_CLOSED, parseRetryAfter,
  type ApiErrorDetails, type ApiFieldIssue, type ApiErrorInit,
} from './errors.js';

// Cursor lists.
export { Paginator, type Page, type PageFetcher } from './paginator.js';

// Retry policy and idempotency keys, for callers that repeat requests themselves (catalog sync).
export { RETRYABLE_STATUSES, DEFAULT_BACKOFF, EMULATOR_CLOCK_HEADER, isManualClockLimit, isRetryable, retryDelay, type BackoffOptions } from './retry.js';
export { generateIdempotencyKey, isValidIdempotencyKey } from './idempotency.js';
export { fillPath, queryString, normalizeBaseUrl } from './url.js';

// Types read from the endpoint rows, and the per-call metadata.
export type {
  AnyEndpoint, ApiResponse, BodyOf, CallOptions, DataOf, ItemOf, ParamsOf, QueryOf, RequestOptions, ResponseInfo, ResponseOf, RetryInfo,
} from './types.js';

// The emulator's control API.
export {
  EmulatorControl,
  type EmulatorControlOptions, type EmulatorClock, type EmulatorState, type ControlStore, type ControlIntegration,
  type ControlWebhook, type CreatedStore, type IssuedStoreToken, type RotatedCredential, type ControlResponse, type StateBundle,
} from './emulator-control.js';
