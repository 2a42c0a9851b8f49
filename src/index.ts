// Public entry `merchant-kit`: what an integrator's code uses. The typed client and its errors,
// webhook verification, and the API's contract: its types, the schemas of its resources, requests
// and events, its value lists and the helpers for its amounts, dates and ids. Named one by one (no
// `export *`): what the emulator and the CLI use inside the contract (the control API's bodies, query
// parsers, id factories, the error catalogue's class) is theirs, not the package's. docs/client.md
// lists it; test/client/package.test.ts keeps the list.

// The typed client: MerchantClient (every endpoint, retries, idempotency keys, cursor iterators) and
// EmulatorControl (the emulator's control API), with the one error class of both.
export {
  MerchantClient, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, EmulatorControl, Paginator,
  ApiError, NETWORK_ERROR, INVALID_RESPONSE, INVALID_REQUEST, CLIENT_CLOSED, parseRetryAfter,
  RETRYABLE_STATUSES, DEFAULT_BACKOFF, isRetryable, retryDelay, EMULATOR_CLOCK_HEADER, isManualClockLimit,
  generateIdempotencyKey, isValidIdempotencyKey,
} from './client/index.js';
export type {
  MerchantClientOptions, FeedPage, EntregaActionBody, ApiErrorDetails, ApiFieldIssue, ApiErrorInit, Page, PageFetcher, BackoffOptions,
  AnyEndpoint, ApiResponse, BodyOf, CallOptions, DataOf, ItemOf, ParamsOf, QueryOf, RequestOptions, ResponseInfo, ResponseOf, RetryInfo,
  EmulatorControlOptions, EmulatorClock, EmulatorState, ControlStore, ControlIntegration, ControlWebhook, CreatedStore, IssuedStoreToken,
  RotatedCredential, ControlResponse, StateBundle,
} from './client/index.js';

// A test environment's homologation certificates: verification with node:crypto alone, and the
// report digest they carry (RFC 8785 canonical JSON).
export { verifyCertificate, certificateOf, reportSha256, jwkThumbprint } from './certificates/index.js';
export type { CertificateProblem, CertificateVerification, VerifyCertificateOptions } from './certificates/index.js';
export type { CertificateHeader, CertificatePayload, RevokedCertificate } from './contract/certificates.js';

// Webhooks: verify (and sign) `X-Service-Signature`.
export { SIGNATURE_TOLERANCE_SECONDS, SIGNATURE_VERSION, parseSignatureHeader, sign, signatureHeader, verify } from './webhooks/index.js';
export type { RawBody, VerifyInput, VerifyResult } from './webhooks/index.js';

// The contract's value lists and limits.
export {
  ORDER_STATUSES, ACK_STATUSES, IMPORT_FAILURE_CODES, SIMULATOR_SCENARIOS, FULFILLMENT_TYPES, EVENT_TYPES, DELIVERY_STATUSES,
  ENTREGA_ACTIONS, ENTREGA_PAYMENT_METHODS,
} from './contract/enums.js';
export { SCOPES, ENVIRONMENTS, INTEGRATION_STATUSES, BASE_PAYMENT_CODES } from './contract/store.js';
export { CHANGE_ACTORS } from './contract/orders.js';
export { BATCH_OPS, UPSERT_RESULTS } from './contract/catalog.js';
export { ENTREGA_STATUSES } from './contract/entregas.js';
export { EVENT_SCOPES } from './contract/events.js';
export { CLOCK_MODES } from './contract/control.js';
export { ERROR_CODES } from './contract/errors.js';
export { LIMITS, API_VERSION, IDEMPOTENCY_KEY_PATTERN, EXTERNAL_ID_PATTERN } from './contract/limits.js';
export { ALL_ENDPOINTS } from './contract/api.js';

// Amounts, dates and ids as the API writes them.
export { AMOUNT_PATTERN, MAX_AMOUNT_CENTS, parseAmount, formatAmount } from './contract/amounts.js';
export { TIMEZONE, DATETIME_PATTERN, formatDate, parseDate } from './contract/dates.js';
export { ID_PREFIXES, isId } from './contract/ids.js';

// The schemas (zod) of the API's resources, requests, events and errors.
export { store, storePatch, meContext, integrationSettings, paymentMethod } from './contract/store.js';
export {
  category, categoryInput, product, productInput, productPatch, option, optionInput, optionPatch, optionGroup, optionGroupInput,
  productImage, batchOperation, batchRequest, batchResultItem, batchResponse, categoryListQuery, productListQuery,
} from './contract/catalog.js';
export { order, orderListQuery, statusChangeBody, ackBody, importFailureBody } from './contract/orders.js';
export {
  event, orderCreatedEvent, orderStatusChangedEvent, orderUpdatedEvent, storeUpdatedEvent, integrationUpdatedEvent, webhookTestEvent,
  feedQuery, feedResponse,
} from './contract/events.js';
export { webhook, webhookInput, deliveryRecord, deliveriesQuery, rotateSecretResult, webhookTestResult } from './contract/webhooks.js';
export { entrega, entregaCreate, entregaActionBodies } from './contract/entregas.js';
export { errorBody, fieldIssue } from './contract/error-body.js';
export { listEnvelope, singleEnvelope } from './contract/common.js';

// The contract's types.
export type {
  Store, MeContext, Scope, PaymentMethod, IntegrationSettings, IntegrationSettingsPatch, IntegrationStatus, Environment,
  Category, CategoryInput, Product, ProductInput, ProductPatch, OptionPatch, OptionGroupInput, UpsertResult, BatchRequest, BatchResultItem, BatchResponse,
  Order, OrderStatus, AckStatus, ChangeActor, StatusChangeBody,
  ApiEvent, EventType, Webhook, WebhookInput, DeliveryStatus, DeliveryRecord, WebhookChaos,
  Entrega, EntregaStatus, EntregaAction, EntregaCreate,
  ErrorCode, ErrorBody, ErrorDetails, FieldIssue, Endpoint, ClockMode, StoreAlert,
} from './contract/index.js';

// The zod types that the schemas' declarations are written with. The package's declarations carry
// their own copy of the part of zod's they use (rollup.types.config.mjs says why); these are exported
// so that a user's own declarations, when they infer a schema's type, can name them (TS2742 otherwise).
export type {
  ZodArray, ZodBoolean, ZodDefault, ZodDiscriminatedUnion, ZodEnum, ZodInt, ZodLiteral, ZodNullable, ZodNumber, ZodObject, ZodOptional, ZodPipe,
  ZodPreprocess, ZodRecord, ZodString, ZodTransform, ZodType, ZodUnion, ZodUnknown, output as ZodOutput,
} from 'zod';
export type { $strict, $strip, $ZodIssue, output as ZodCoreOutput } from 'zod/v4/core';
