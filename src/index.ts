// Public entry `merchant-kit`: the API contract (schemas, types, ids, amounts, dates, errors)
// and webhook signature verification for receivers.
export * from './contract/index.js';

// Webhooks: sign and verify `X-Service-Signature`.
export * from './webhooks/index.js';

// A test environment's homologation certificates: verification with node:crypto alone, and the
// report digest they carry (RFC 8785 canonical JSON).
export * from './certificates/index.js';

// Typed client: MerchantClient (every endpoint, retries, idempotency keys, cursor iterators),
// EmulatorControl (the emulator's control API) and ApiError.
export * from './client/index.js';
// The client's ApiError (status, code, message, details, requestId) is the one integrators catch; the
// contract's class of the same name is the emulator's internal error and stays in src/contract.
export { ApiError } from './client/index.js';

// The zod types that the schemas' declarations are written with. The package's declarations carry
// their own copy of the part of zod's they use (rollup.types.config.mjs says why); these are exported
// so that a user's own declarations, when they infer a schema's type, can name them (TS2742 otherwise).
export type {
  ZodArray, ZodBoolean, ZodDefault, ZodDiscriminatedUnion, ZodEnum, ZodInt, ZodLiteral, ZodNullable, ZodNumber, ZodObject, ZodOptional, ZodPipe,
  ZodPreprocess, ZodRecord, ZodString, ZodTransform, ZodType, ZodUnion, ZodUnknown, output as ZodOutput,
} from 'zod';
export type { $strict, $strip, $ZodIssue, output as ZodCoreOutput } from 'zod/v4/core';
