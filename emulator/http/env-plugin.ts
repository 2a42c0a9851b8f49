import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { authenticate, type AuthContext } from './auth.js';
import { sendError } from './reply.js';
import { takenFault } from '../faults.js';
import { API_ROUTES } from '../routes/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** Routes that answer without a credential (the OpenAPI document). */
    public?: boolean;
  }
}

/**
 * One environment's API under its base path. Its onRequest hook runs, in order: injected faults
 * (they answer before the request runs), the per-IP block after 30 authentication failures, the
 * credential, and the per-integration rate limit (spec: Authentication 5, Limits).
 */
export function envPlugin(emulator: Emulator, env: EnvContext) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    addEnvHooks(app, emulator, env);
    for (const register of API_ROUTES) register(app, env, emulator);
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
    const taken = emulator.faults.take(request.method, q === -1 ? request.url : request.url.slice(0, q));
    if (!taken) return admit(emulator, env, request, reply, done);
    const fault = takenFault(taken);
    const apply = () => {
      if (fault.error) return void sendError(request, reply, fault.error);
      try {
        admit(emulator, env, request, reply, done);
      } catch (error) {
        done(error as Error);
      }
    };
    if (fault.delayMs > 0) setTimeout(apply, fault.delayMs);
    else apply();
  });
}

/** The credential, the per-IP block and the per-integration rate limit; `done` when the request may run. */
function admit(emulator: Emulator, env: EnvContext, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.routeOptions.config?.public) return done();
  const limits = emulator.options.limits;
  const now = env.clock.now();
  if (limits && emulator.authFailureLimiter.exhausted(request.ip, now)) {
    return void sendError(request, reply, rateLimited(emulator.authFailureLimiter.hit(request.ip, now).retryAfterSeconds));
  }
  let auth: AuthContext;
  try {
    auth = authenticate(env, request);
  } catch (error) {
    emulator.authFailureLimiter.hit(request.ip, now);
    return void sendError(request, reply, error as ApiError);
  }
  request.auth = auth;
  const count = emulator.requestLimiter.hit(auth.integration.id, now);
  reply.header('X-RateLimit-Limit', String(emulator.requestLimiter.max));
  reply.header('X-RateLimit-Remaining', String(count.remaining));
  if (limits && !count.allowed) return void sendError(request, reply, rateLimited(count.retryAfterSeconds));
  done();
}

export function rateLimited(retryAfterSeconds: number): ApiError {
  return ApiError.of('rate_limited').withHeaders({ 'Retry-After': String(retryAfterSeconds) });
}
