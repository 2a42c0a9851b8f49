import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { ClockMode } from '../../src/contract/control.js';

/** Sends an ApiError in the spec's body, with its headers and the request's id. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toBody(request.id));
}

/** Maps what fastify itself throws (parsing, limits, unknown exceptions) to the spec's errors. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return ApiError.of('payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return ApiError.of('malformed_json');
    default: {
      if (error instanceof SyntaxError) return ApiError.of('malformed_json');
      // Any other 4xx fastify raises is about how the request was framed: never a 500 for bad input.
      const status = (error as { statusCode?: unknown }).statusCode;
      if (status === 413) return ApiError.of('payload_too_large');
      if (typeof status === 'number' && status >= 400 && status < 500) return ApiError.of('malformed_json');
      return ApiError.of('internal_error');
    }
  }
}

/**
 * spec: Limits — 429 `rate_limited`, with when to try again. A window of the emulator's own clock
 * under `--clock manual` adds `X-Emulator-Clock: manual` (docs/emulator.md): its `Retry-After` counts
 * seconds of a clock that stands still, so a client waiting for it would wait for ever.
 */
export function rateLimited(retryAfterSeconds: number, clockMode?: ClockMode): ApiError {
  const headers: Record<string, string> = { 'Retry-After': String(retryAfterSeconds) };
  if (clockMode === 'manual') headers['X-Emulator-Clock'] = 'manual';
  return ApiError.of('rate_limited').withHeaders(headers);
}
