// Public entry `merchant-kit`: the API contract (schemas, types, ids, amounts, dates, errors)
// and webhook signature verification for receivers.
export * from './contract/index.js';

// Webhooks: sign and verify `X-Service-Signature`.
export * from './webhooks/index.js';
