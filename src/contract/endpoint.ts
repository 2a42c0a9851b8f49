import type { z } from 'zod';
import type { ErrorCode } from './errors.js';
import type { Scope } from './store.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One row of the spec's Endpoints table, as data: the emulator registers routes from it (validation,
 * scopes, idempotency), the client types its calls with it and the OpenAPI document is generated from it.
 */
export interface Endpoint<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  id: string;
  method: HttpMethod;
  /** Relative to the base address, OpenAPI style: `/catalog/products/{external_id}`. */
  path: string;
  summary: string;
  /** `null`: any valid credential (GET /me). */
  scope: Scope | null;
  idempotency: 'required' | 'optional' | 'none';
  params?: P;
  query?: Q;
  body?: B;
  /** Success status and body (already in its envelope). */
  status: number;
  response: R;
  /** Other success statuses the endpoint can answer with the same body (PUT: 200 as well as 201). */
  alsoStatus?: number[];
  errors: ErrorCode[];
  /**
   * A body that depends on the value of a path parameter (`/entregas/{id}/{action}`): the OpenAPI
   * document shows one operation per value (`/entregas/{id}/pickup`), each with its own body, since
   * JSON Schema cannot tie a body to a path. The route still reads `body` and then the value's schema.
   */
  bodiesByParam?: { param: string; bodies: Readonly<Record<string, z.ZodType>> };
}

export function endpoint<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  e: Endpoint<P, Q, B, R>,
): Endpoint<P, Q, B, R> {
  return e;
}
