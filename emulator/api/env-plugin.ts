import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import type { AuthContext } from '../http/auth.js';
import { authenticate } from './authenticate.js';
import { rateLimited, sendError } from '../http/reply.js';
import { takenFault, type FaultView } from '../faults.js';
import { isPromise, type MaybePromise } from '../store/maybe.js';

/** One group of routes of the API (an aggregate's), registered under each environment's base path. */
export type RouteRegistrar = (app: FastifyInstance, env: EnvContext, emulator: Emulator) => void;

/**
 * One environment's API under its base path, with the routes the root hands in (emulator/routes.ts).
 * Its onRequest hook runs, in order: injected faults (they answer before the request runs), the
 * per-IP block after 30 authentication failures, the credential, and the per-integration rate limit
 * (spec: Authentication 5, Limits).
 */
export function envPlugin(emulator: Emulator, env: EnvContext, routes: readonly RouteRegistrar[]) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    addEnvHooks(app, emulator, env);
    for (const register of routes) register(app, env, emulator);
  };
}

/**
 * The environment's request pipeline, for a plugin under its base path (tests add routes of their
 * own through it).
 */
export function addEnvHooks(app: FastifyInstance, emulator: Emulator, env: EnvContext): void {
  // A callback hook rather than an async one: no promise and no extra turn on every request.
  // A hook that answers does not call `done` (fastify then runs nothing more of the request).
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const q = request.url.indexOf('?');
    const taken = emulator.storage.coordination.faults.take(request.method, q === -1 ? request.url : request.url.slice(0, q));
    if (isPromise(taken)) {
      taken.then((view) => applyFault(emulator, env, request, reply, done, view), (error: Error) => done(error));
    } else applyFault(emulator, env, request, reply, done, taken);
  });
}

/** An injected fault answers before the request runs (after its delay); without one the request is admitted. */
function applyFault(
  emulator: Emulator, env: EnvContext, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, view: FaultView | undefined,
): void {
  if (!view) return admit(emulator, env, request, reply, done);
  const fault = takenFault(view);
  const apply = () => {
    if (fault.error) return void sendError(request, reply, fault.error);
    admit(emulator, env, request, reply, done);
  };
  if (fault.delayMs > 0) setTimeout(apply, fault.delayMs);
  else apply();
}

/**
 * The credential, the per-IP block and the per-integration rate limit; `done` when the request may
 * run. Each step may answer at once (the embedded storage, a cached credential) or later (a server
 * database): the usual request takes no promise at all.
 */
function admit(emulator: Emulator, env: EnvContext, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.routeOptions.config?.public) return done();
  const windows = emulator.storage.coordination.windows;
  const now = env.clock.now();
  const fail = (error: unknown) => (error instanceof ApiError ? void sendError(request, reply, error) : done(error as Error));
  const authenticated = (auth: AuthContext) => {
    request.auth = auth;
    then(windows.hit('requests', auth.integration.id, now), (count) => {
      reply.header('X-RateLimit-Limit', String(windows.limit('requests')));
      reply.header('X-RateLimit-Remaining', String(count.remaining));
      if (emulator.options.limits && !count.allowed) return void sendError(request, reply, rateLimited(count.retryAfterSeconds, env.clock.mode));
      done();
    }, fail);
  };
  const refused = (error: unknown) => {
    if (!(error instanceof ApiError)) return fail(error);
    // The hit's own count decides: of failures racing past the check below (several processes, or
    // requests in flight together), only the first 30 of the minute answer 401, the rest 429.
    then(windows.hit('auth_failures', request.ip, now), (hit) => sendError(request, reply, emulator.options.limits && !hit.allowed ? rateLimited(hit.retryAfterSeconds, env.clock.mode) : error), fail);
  };
  const authenticateNow = () => {
    let auth: MaybePromise<AuthContext>;
    try {
      auth = authenticate(env, request);
    } catch (error) {
      return refused(error);
    }
    then(auth, authenticated, refused);
  };
  if (!emulator.options.limits) return authenticateNow();
  then(windows.exhausted('auth_failures', request.ip, now), (blocked) => {
    if (!blocked) return authenticateNow();
    then(windows.hit('auth_failures', request.ip, now), (hit) => sendError(request, reply, rateLimited(hit.retryAfterSeconds, env.clock.mode)), fail);
  }, fail);
}

/** `next(value)` now when the value is there, else when it comes; `fail` on an error either way. */
function then<T>(value: MaybePromise<T>, next: (value: T) => void, fail: (error: unknown) => void): void {
  if (!isPromise(value)) {
    try {
      next(value);
    } catch (error) {
      fail(error);
    }
    return;
  }
  value.then(next, fail).catch(fail);
}
