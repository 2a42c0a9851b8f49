import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { authenticate, type AuthContext } from './auth.js';
import { sendError } from './reply.js';
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    const fault = emulator.faults.take(request.method, path);
    if (fault) {
      if (fault.delayMs > 0) await sleep(fault.delayMs);
      if (fault.error) return sendError(request, reply, fault.error);
    }
    if (request.routeOptions.config?.public) return;
    const limits = emulator.options.limits;
    const now = env.clock.now();
    if (limits && emulator.authFailureLimiter.exhausted(request.ip, now)) {
      return sendError(request, reply, rateLimited(emulator.authFailureLimiter.hit(request.ip, now).retryAfterSeconds));
    }
    let auth: AuthContext;
    try {
      auth = authenticate(env, request);
    } catch (error) {
      emulator.authFailureLimiter.hit(request.ip, now);
      return sendError(request, reply, error as ApiError);
    }
    request.auth = auth;
    const count = emulator.requestLimiter.hit(auth.integration.id, now);
    reply.header('X-RateLimit-Limit', String(emulator.requestLimiter.max));
    reply.header('X-RateLimit-Remaining', String(count.remaining));
    if (limits && !count.allowed) return sendError(request, reply, rateLimited(count.retryAfterSeconds));
  });
}

export function rateLimited(retryAfterSeconds: number): ApiError {
  return ApiError.of('rate_limited').withHeaders({ 'Retry-After': String(retryAfterSeconds) });
}
