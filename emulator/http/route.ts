import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Endpoint } from '../../src/contract/endpoint.js';
import { ApiError } from '../../src/contract/errors.js';
import { parseOrThrow, parseParams } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { assertNotSuspended, type AuthContext } from './auth.js';
import { checkIdempotency, replayOf, settleIdempotency, type IdempotencyDecision } from './idempotency.js';
import { ClaimAnswered, type StoredResponse, type WorkClaim } from '../store/coordination.js';
import { JsonText } from './json-text.js';
import { parseQuery } from './query.js';
import { isPromise } from '../store/maybe.js';

export interface CallContext<E extends Endpoint> {
  /** The request's environment: one registration serves both (api/base-path.ts). */
  env: EnvContext;
  emulator: Emulator;
  auth: AuthContext;
  params: z.output<NonNullable<E['params']>>;
  query: z.output<NonNullable<E['query']>>;
  body: z.output<NonNullable<E['body']>>;
  /** The body as received, before defaults (to tell "omitted" from "default"). */
  rawBody: unknown;
  request: FastifyRequest;
  /**
   * The idempotency key's claim for the handler's unit of work to take (`EnvStore.tx(work, claim)`),
   * on a route with `claimsWithWork` and a server database; otherwise undefined (the route claimed).
   */
  claim?: WorkClaim;
}

export interface Outcome {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Handler<E extends Endpoint> = (call: CallContext<E>) => Outcome | Promise<Outcome>;

export interface RouteOptions {
  /**
   * A permission check of the whole route that must answer before the body is looked at
   * (DESIGN: `catalog_mode: manual` answers 403 `field_not_managed` to every catalog write).
   */
  guard?: (auth: AuthContext) => void;
  /**
   * The handler parses `rawBody` with the endpoint's schema itself, because something must be checked
   * before the envelope (POST /catalog/batch: more than 500 operations is 413 before any 422).
   */
  parsesBodyItself?: boolean;
  /**
   * Every effect of the handler is in one unit of work, which it runs with `call.claim`: on a server
   * database the idempotency key is claimed in that unit of work's first round trip (issue 25), and
   * by the route after the handler only when the handler ran none (it answered before, with an error).
   */
  claimsWithWork?: boolean;
  /**
   * With `claimsWithWork`: the handler's outcome from what its unit of work returned, when it is
   * known before the COMMIT (undefined: not known then). A server database then stores the key's
   * answer in that COMMIT (issue 25): the effect and its answer commit together, no round trip of
   * their own, and the route sends the answer stored, which is the handler's.
   */
  outcomeOfWork?: (out: unknown) => Outcome | undefined;
  /** A read a server database makes with the request's admission (the handler finds it in `request.prefetch`). */
  prefetch?: NonNullable<FastifyContextConfig['prefetch']>;
}

export const ok = (data: unknown, status = 200): Outcome => ({ status, body: { data } });

/** Fastify's `:param` form of an OpenAPI path. */
export const fastifyPath = (path: string) => path.replace(/\{([a-z_]+)\}/g, ':$1');

function urlPath(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q === -1 ? request.url : request.url.slice(0, q);
}

/**
 * Registers one row of the Endpoints table: scope and suspension (spec: Authentication 6, 9),
 * idempotency (spec: Idempotency rules), validation of params, query and body with the contract,
 * then the handler. Authentication and rate limits already ran in the environments' onRequest hook,
 * which set the request's environment: the route serves both (registered once, api/env-plugin.ts).
 */
export function apiRoute<E extends Endpoint>(
  app: FastifyInstance,
  emulator: Emulator,
  endpoint: E,
  handler: Handler<E>,
  options: RouteOptions = {},
): void {
  app.route({
    method: endpoint.method,
    url: fastifyPath(endpoint.path),
    ...(options.prefetch ? { config: { prefetch: options.prefetch } } : {}),
    // Not an async function: a read whose handler answers at once (the SQLite order read) is sent in
    // this call, without a promise and the turns of the queue that awaiting it and fastify's wait
    // for it would cost. Fastify sends what a sync handler throws as it sends a rejection.
    handler: (request, reply) => {
      const env = request.env!;
      const auth = request.auth!;
      if (endpoint.scope !== null) {
        assertNotSuspended(auth);
        if (!auth.integration.scopes.includes(endpoint.scope)) throw ApiError.of('insufficient_scope');
      }
      options.guard?.(auth);
      return endpoint.idempotency === 'none' ? answerRead(request, reply, env, auth) : answerWrite(request, reply, env, auth);
    },
  });

  /** A route without idempotency: what it throws is the answer (no key to release or settle). */
  function answerRead(request: FastifyRequest, reply: FastifyReply, env: EnvContext, auth: AuthContext): Promise<FastifyReply> | undefined {
    const outcome = handler(callOf(request, env, auth, undefined));
    if (isPromise(outcome)) return outcome.then((done) => sendStored(request, reply, storedOf(done), false));
    // Sent now; a sync fastify handler that sent returns nothing (a returned reply would be sent twice).
    sendStored(request, reply, storedOf(outcome), false);
    return undefined;
  }

  const storedOf = (outcome: Outcome): StoredResponse => ({ status: outcome.status ?? endpoint.status, body: outcome.body, headers: outcome.headers ?? {} });

  /** The handler's call: params, query and body parsed with the contract (a 422 is thrown from here). */
  function callOf(request: FastifyRequest, env: EnvContext, auth: AuthContext, workClaim: WorkClaim | undefined): CallContext<E> {
    return {
      env,
      emulator,
      auth,
      request,
      rawBody: request.body,
      params: (endpoint.params ? parseParams(endpoint.params, request.params) : {}) as never,
      query: (endpoint.query ? parseQuery(endpoint.query, request.query) : {}) as never,
      body: (options.parsesBodyItself ? (requireBody(request.body), undefined) : endpoint.body ? parseBody(endpoint.body, request.body) : refuseBody(request.body)) as never,
      ...(workClaim ? { claim: workClaim } : {}),
    };
  }

  /** A write: its idempotency key is checked, claimed and settled around the handler (spec: Idempotency rules). */
  async function answerWrite(request: FastifyRequest, reply: FastifyReply, env: EnvContext, auth: AuthContext): Promise<FastifyReply> {
    const integrationId = auth.integration.id;
    const claims = emulator.storage.coordination.idempotency;
    const decision: IdempotencyDecision = await checkIdempotency(
      claims, env.name, env.clock.now(), integrationId, endpoint, request.headers['idempotency-key'], request.method, urlPath(request), request.body,
      options.claimsWithWork === true,
    );
    if (decision.kind === 'replay') return sendStored(request, reply, decision.response, true);
    const workClaim = decision.kind === 'work' ? decision.claim : undefined;
    const outcomeOfWork = options.outcomeOfWork;
    if (workClaim && outcomeOfWork) {
      workClaim.answerOf = (out) => {
        const outcome = outcomeOfWork(out);
        return outcome && storedOf(outcome);
      };
    }

    let response: StoredResponse;
    let code: string | undefined;
    try {
      response = storedOf(await handler(callOf(request, env, auth, workClaim)));
    } catch (error) {
      // The unit of work's claim did not take the key: the claim answers (nothing was written).
      if (error instanceof ClaimAnswered) return sendStored(request, reply, replayOf(error.claim)!, true);
      const key = decision.kind === 'fresh' || decision.kind === 'work' ? decision.key : undefined;
      if (!(error instanceof ApiError) || key === undefined) {
        if (key !== undefined && (decision.kind === 'fresh' || workClaim?.taken?.kind === 'fresh')) await claims.release(env.name, integrationId, key);
        throw error;
      }
      code = error.code;
      response = { status: error.status, body: error.toBody(request.id), headers: error.headers };
    }
    // Stored with the unit of work's COMMIT: the same answer as the handler's, sent as stored.
    if (workClaim?.stored) return sendStored(request, reply, workClaim.stored, false);
    if (workClaim) {
      // The handler answered without a unit of work (an error before it): the key is claimed now,
      // and a key that is not this request's answers as it would have before the handler ran.
      const replay = replayOf(await workClaim.result());
      if (replay) return sendStored(request, reply, replay, true);
    }
    if (decision.kind === 'fresh' || decision.kind === 'work') await settleIdempotency(claims, env.name, integrationId, decision.key, response, code);
    return sendStored(request, reply, response, false);
  }
}

function parseBody(schema: z.ZodType, body: unknown) {
  return parseOrThrow(schema, requireBody(body));
}

/** A write that takes a body and got none is not a JSON object: 400 (spec: Errors, malformed_json). */
export function requireBody(body: unknown): unknown {
  if (body === undefined) throw ApiError.of('malformed_json', undefined, 'Esta operación requiere un cuerpo JSON.');
  return body;
}

/**
 * spec: Endpoints — an endpoint without a request body (DELETE, POST /webhook/test…) still refuses
 * fields, as every write refuses unknown ones: 422 with one `unknown_field` per key. No body or `{}` is fine.
 */
function refuseBody(body: unknown): undefined {
  // A read has no body: nothing to look at.
  if (body === undefined || body === null || typeof body !== 'object') return undefined;
  const keys = Object.keys(body);
  if (keys.length > 0) {
    throw ApiError.validation(keys.map((key) => ({ field: key, code: 'unknown_field', message: `El campo "${key}" no es parte de esta operación.` })));
  }
  return undefined;
}

function sendStored(request: FastifyRequest, reply: FastifyReply, response: StoredResponse, replay: boolean): FastifyReply {
  for (const name in response.headers) reply.header(name, response.headers[name]);
  let body = response.body;
  if (replay) {
    reply.header('Idempotent-Replay', 'true');
    const error = (body as { error?: { request_id?: string } }).error;
    if (error) body = { error: { ...error, request_id: request.id } };
  }
  // A body kept as JSON text (or bytes, the feed) goes out as is: fastify sends strings and buffers
  // of a JSON type without serializing them.
  const payload = body instanceof JsonText ? body.text : body;
  return reply.code(response.status).type('application/json; charset=utf-8').send(payload);
}
