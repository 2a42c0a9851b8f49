import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import type { AuthContext } from '../http/auth.js';
import { authenticate } from './authenticate.js';
import { rateLimited, sendError } from '../http/reply.js';
import { takenFault, type FaultView } from '../faults.js';
import { isPromise, type MaybePromise } from '../store/maybe.js';
import type { Admission, AdmitRequest } from '../store/port.js';
import { digestSecret, parseAuthorization } from '../stores/credentials.js';
import { environmentOf } from './base-path.js';

/**
 * One group of routes of the API (an aggregate's), registered once for both environments: a handler
 * takes its environment from the request (`call.env` in http/route.ts), never from its registration.
 */
export type RouteRegistrar = (app: FastifyInstance, emulator: Emulator) => void;

/**
 * The API of both environments, registered once under the live base path (a sandbox request is
 * routed there: api/base-path.ts), with the routes the root hands in (emulator/routes.ts). Its
 * onRequest hook sets the request's environment, then runs, in order: injected faults (they answer
 * before the request runs), the per-IP block after 30 authentication failures, the credential, and
 * the per-integration rate limit (spec: Authentication 5, Limits).
 */
export function envPlugin(emulator: Emulator, routes: readonly RouteRegistrar[]) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    addEnvHooks(app, emulator);
    for (const register of routes) register(app, emulator);
  };
}

/**
 * The environments' request pipeline, for a plugin under the live base path (tests add routes of
 * their own through it: they answer under both base paths).
 */
export function addEnvHooks(app: FastifyInstance, emulator: Emulator): void {
  const admissions = emulator.storage.admissions;
  // A server database: every route here is admitted by one statement (app.ts then skips its own
  // read of the shared state for it).
  if (admissions) {
    app.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), admitted: true } as typeof route.config;
    });
  }
  // A callback hook rather than an async one: no promise and no extra turn on every request.
  // A hook that answers does not call `done` (fastify then runs nothing more of the request).
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const env = emulator.envs[environmentOf(request)];
    request.env = env;
    if (!admissions || !request.routeOptions.config?.admitted) return takeFault(emulator, env, request, reply, done, null);
    const epoch = emulator.syncEpoch();
    admissions.admit(admitRequest(emulator, env, request)).then((admission) => {
      // The shared state first (a clock moved, a reset made elsewhere), as app.ts's sync does.
      const adopted = emulator.adoptShared(admission.shared, epoch);
      if (isPromise(adopted)) adopted.then(() => takeFault(emulator, env, request, reply, done, admission), (error: Error) => done(error));
      else takeFault(emulator, env, request, reply, done, admission);
    }, (error: Error) => done(error));
  });
}

/** What the request's admission reads: a public route's none of the credential's; a route with a prefetch its read. */
function admitRequest(emulator: Emulator, env: EnvContext, request: FastifyRequest): AdmitRequest {
  const config = request.routeOptions.config;
  const parsed = config?.public ? undefined : parseAuthorization(request.headers.authorization);
  return {
    environment: env.name,
    credential: parsed && parsed.env === env.name ? { keyId: parsed.keyId, digest: digestSecret(parsed.secret) } : null,
    ip: request.ip,
    limits: emulator.options.limits,
    realNow: Date.now(),
    now: env.clock.now(),
    read: config?.prefetch?.({ params: request.params, query: request.query }) ?? null,
  };
}

function takeFault(
  emulator: Emulator, env: EnvContext, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, admission: Admission | null,
): void {
  const q = request.url.indexOf('?');
  const taken = emulator.storage.coordination.faults.take(request.method, q === -1 ? request.url : request.url.slice(0, q));
  if (isPromise(taken)) {
    taken.then((view) => applyFault(emulator, env, request, reply, done, view, admission), (error: Error) => done(error));
  } else applyFault(emulator, env, request, reply, done, taken, admission);
}

/** An injected fault answers before the request runs (after its delay); without one the request is admitted. */
function applyFault(
  emulator: Emulator, env: EnvContext, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, view: FaultView | undefined,
  admission: Admission | null,
): void {
  if (!view) return admit(emulator, env, request, reply, done, admission);
  const fault = takenFault(view);
  const apply = () => {
    if (fault.error) return void sendError(request, reply, fault.error);
    admit(emulator, env, request, reply, done, admission);
  };
  if (fault.delayMs > 0) setTimeout(apply, fault.delayMs);
  else apply();
}

/**
 * The credential, the per-IP block and the per-integration rate limit; `done` when the request may
 * run. Each step may answer at once (the embedded storage, a cached credential) or later (a server
 * database): the usual request takes no promise at all. With an admission (a server database), each
 * step takes its answer from it when it answered that step.
 */
function admit(
  emulator: Emulator, env: EnvContext, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, admission: Admission | null,
): void {
  if (request.routeOptions.config?.public) return done();
  const windows = emulator.storage.coordination.windows;
  const now = env.clock.now();
  const fail = (error: unknown) => (error instanceof ApiError ? void sendError(request, reply, error) : done(error as Error));
  const authenticated = (auth: AuthContext) => {
    request.auth = auth;
    if (admission) request.prefetch = { order: admission.order, products: admission.products, feed: admission.feed };
    // The admission's hit was counted for this very credential, judged usable as it is here.
    const hit = admission?.hit && admission.records?.credential.keyId === auth.credential.keyId ? admission.hit : windows.hit('requests', auth.integration.id, now);
    then(hit, (count) => {
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
      auth = authenticate(env, request, admission && { records: admission.records });
    } catch (error) {
      return refused(error);
    }
    then(auth, authenticated, refused);
  };
  if (!emulator.options.limits) return authenticateNow();
  const blocked = admission && admission.blocked !== null ? admission.blocked : windows.exhausted('auth_failures', request.ip, now);
  then(blocked, (isBlocked) => {
    if (!isBlocked) return authenticateNow();
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
