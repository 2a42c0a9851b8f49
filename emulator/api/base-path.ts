// The API is registered once, under the live base path (`/v1`), for both environments: registering
// it under each base path cost every start 2 × 41 routes (HEAD beside each GET), a fifth of a warm
// in-process start (issue 27). A sandbox request (`/sandbox/v1/…`) is routed as the same path without
// the sandbox's segment, and gets its own path back before any hook runs: hooks, routes, the request
// log, the observer and the logs see the path the client sent, and the environment plugin tells the
// environment from it (env-plugin.ts). Paths are routed after their dot segments are removed (app.ts).
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { BASE_PATHS } from '../../src/contract/base-paths.js';
import type { Environment } from '../../src/contract/store.js';

/** `/sandbox`: what the sandbox's base path adds to the live one's (`/sandbox` + `/v1`). */
const SANDBOX_SEGMENT = BASE_PATHS.test.slice(0, -BASE_PATHS.live.length);
if (SANDBOX_SEGMENT + BASE_PATHS.live !== BASE_PATHS.test) throw new Error('the sandbox base path must be a prefix plus the live one');

/** The sandbox requests being routed as live paths, with the path they came with. */
const routedAsLive = new WeakMap<IncomingMessage, string>();

/** Whether `target` is under `base` (the base itself, `base/…` or `base?…`). */
function isUnder(target: string, base: string): boolean {
  if (!target.startsWith(base)) return false;
  const next = target.charCodeAt(base.length);
  return Number.isNaN(next) || next === 0x2f /* / */ || next === 0x3f /* ? */;
}

/**
 * The target fastify routes for `target` (dot segments already removed): a sandbox API path as the
 * live one (`/sandbox/v1/me` → `/v1/me`), every other path as it is.
 */
export function routingTarget(raw: IncomingMessage, target: string): string {
  if (!isUnder(target, BASE_PATHS.test)) return target;
  routedAsLive.set(raw, target);
  return target.slice(SANDBOX_SEGMENT.length);
}

/** The request's own target back, once routed (the app's first hook; idempotent). */
export function restoreTarget(raw: IncomingMessage): void {
  const target = routedAsLive.get(raw);
  if (target !== undefined) raw.url = target;
}

/** The target the client sent (dot segments removed), also before `restoreTarget` (the log's first line). */
export function clientTarget(raw: IncomingMessage): string {
  return routedAsLive.get(raw) ?? raw.url ?? '/';
}

/** The environment of an API request, by the base path it came under. */
export function environmentOf(request: FastifyRequest): Environment {
  return routedAsLive.has(request.raw) ? 'test' : 'live';
}
