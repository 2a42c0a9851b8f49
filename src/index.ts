// Public entry `merchant-kit`: the API contract (schemas, types, ids, amounts, dates, errors)
// and webhook signature verification for receivers.
export * from './contract/index.js';

// Webhooks: sign and verify `X-Service-Signature`.
export * from './webhooks/index.js';

// Typed client: MerchantClient (every endpoint, retries, idempotency keys, cursor iterators),
// EmulatorControl (the emulator's control API) and ApiError.
export * from './client/index.js';
// The client's ApiError (status, code, message, details, requestId) is the one integrators catch; the
// contract's class of the same name is the emulator's internal error and stays in src/contract.
export { ApiError } from './client/index.js';
