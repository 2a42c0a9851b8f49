import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { Environment } from '../../src/contract/store.js';
import type { Emulator } from '../emulator.js';
import type { EnvStore } from '../store/port.js';
import { sendError } from './reply.js';

// DESIGN, Storage and the team sandbox: with --admin-token, the admin token opens every control
// route; a store token opens only the routes about its own store. Each route says in its
// `config.storeScope` what a store token may do there; a route that says nothing is the admin's
// alone, so a route added later stays closed to store tokens until it says otherwise.

/** Who is calling: the admin (also everyone, on an emulator without --admin-token) or one store's token. */
export type ControlAccess = { role: 'admin' } | { role: 'store'; storeId: string; environment: Environment };

const ADMIN: ControlAccess = { role: 'admin' };
const granted = new WeakMap<FastifyRequest, ControlAccess>();

export function grantAccess(request: FastifyRequest, access: ControlAccess): void {
  granted.set(request, access);
}

export function accessOf(request: FastifyRequest): ControlAccess {
  return granted.get(request) ?? ADMIN;
}

/**
 * The environment the request's authorization resolved: a store token's own, where its handler
 * must act (and look ids up); null for the admin, who reaches both.
 */
export function resolvedEnvironment(request: FastifyRequest): Environment | null {
  const access = accessOf(request);
  return access.role === 'store' ? access.environment : null;
}

/** The store a request names is not there for the caller: no store token can tell which. */
const UNNAMED = Symbol('the request names no store');

/**
 * The store that owns what the route is about, looked up in the token's environment (undefined:
 * none there), or UNNAMED when the request names none and the route's own validation answers.
 */
export type Owner = (store: EnvStore, request: FastifyRequest) => Promise<string | undefined | typeof UNNAMED>;

export type StoreScope =
  /** Reads that tell nothing about any store (health, the clock). */
  | { kind: 'any' }
  /** The route shows a store token only its own store (state, logs, live updates). */
  | { kind: 'filtered' }
  /** About one store: its token passes; another store's id answers 404 as if it did not exist. */
  | { kind: 'owned'; owner: Owner; missing?: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a store token may do on this control route; none: the admin's alone. */
    storeScope?: StoreScope;
    /** The panel's page and assets: no data, served without a token (a browser cannot send one to open a page). */
    panelPublic?: boolean;
    /**
     * A route for people outside the sandbox, served without a token: an integrator asking for access
     * (and following the request with its claim secret), anyone reading the certificates' public keys.
     */
    tokenless?: boolean;
  }
}

type ScopeConfig = { config: { storeScope: StoreScope } };

export const ANY_TOKEN: ScopeConfig = { config: { storeScope: { kind: 'any' } } };
export const FILTERED: ScopeConfig = { config: { storeScope: { kind: 'filtered' } } };

/** A route about one store, found by `owner`; `missing` is the route's own 404 message for an unknown id. */
export function ownedBy(owner: Owner, missing?: string): ScopeConfig {
  return { config: { storeScope: { kind: 'owned', owner, missing } } };
}

const param = (request: FastifyRequest, name: string): string => (request.params as Record<string, string>)[name] ?? '';

/** `:store_id` in the path. */
export const storeParam = (missing?: string) => ownedBy(async (_store, request) => param(request, 'store_id'), missing);

/** `:integration_id` in the path. */
export const integrationParam = (missing?: string) =>
  ownedBy(async (store, request) => (await store.integrations.byId(param(request, 'integration_id')))?.storeId, missing);

/** `store_id` in the JSON body (the simulator); a body without one is left to the route's validation. */
export const storeInBody = (missing?: string) =>
  ownedBy(async (_store, request) => {
    const id = (request.body as { store_id?: unknown } | null | undefined)?.store_id;
    return typeof id === 'string' ? id : UNNAMED;
  }, missing);

const REFUSED = 'Un token de comercio abre solo las rutas de su comercio; esta operación del sandbox requiere el token de administración.';

/**
 * The preHandler of the control routes (after the body is parsed: the simulator names its store
 * there). The admin passes; a store token passes where the route's scope lets it, answers 403
 * `insufficient_scope` on the sandbox's own routes, and 404 `not_found` on another store's.
 */
export function authorize(emulator: Emulator) {
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    const access = accessOf(request);
    if (access.role === 'admin') return done();
    const scope = request.routeOptions.config?.storeScope;
    if (!scope) return void sendError(request, reply, new ApiError('insufficient_scope', REFUSED));
    if (scope.kind !== 'owned') return done();
    scope.owner(emulator.env(access.environment).store, request).then((owner) => {
      if (owner === UNNAMED || owner === access.storeId) return done();
      sendError(request, reply, ApiError.of('not_found', undefined, scope.missing));
    }, done);
  };
}
