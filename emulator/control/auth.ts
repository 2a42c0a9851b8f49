import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import { rateLimited, sendError } from '../http/reply.js';
import { storeOfToken } from '../stores/store-token.js';
import { grantAccess, type ControlAccess } from '../http/control-access.js';
import { bearerToken } from '../http/bearer.js';

/** The admin token, compared in constant time (digests of equal length, whatever was sent). */
function isAdminToken(given: string, token: string): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(token).digest());
}

const REFUSED = 'Token ausente o inválido: use el token de administración del emulador o el token de su comercio (mks_…).';

/**
 * Who the Authorization header names: the admin, one store, or nobody (undefined). One rule for the
 * header, as for the API's credentials (http/bearer.ts): `Bearer` in any case, then the token.
 */
async function accessFor(emulator: Emulator, header: string | undefined, adminToken: string): Promise<ControlAccess | undefined> {
  const given = bearerToken(header);
  if (given === undefined) return undefined;
  if (isAdminToken(given, adminToken)) return { role: 'admin' };
  const store = await storeOfToken(Object.values(emulator.envs), given);
  return store ? { role: 'store', ...store } : undefined;
}

/**
 * spec: Authentication 5, applied to the control API's tokens too (admin and store alike) — after 30
 * failures per minute from one IP, every control request from it is 429 `rate_limited` until the
 * minute ends, so a token cannot be guessed at hundreds of tries a second. One budget per IP for the
 * whole sandbox (the storage's `admin_failures` window, shared by every process on PostgreSQL). Real
 * minutes, not the emulator's clock: a manual clock that nobody advances would never end the block.
 * Not lifted by `--limits off`, which is about the API's limits that integrators test against, not
 * the emulator's own guard.
 */
async function authenticate(emulator: Emulator, adminToken: string, request: FastifyRequest): Promise<ApiError | null> {
  const windows = emulator.storage.coordination.windows;
  const now = emulator.options.guardNow();
  if (await windows.exhausted('admin_failures', request.ip, now)) {
    return rateLimited((await windows.hit('admin_failures', request.ip, now)).retryAfterSeconds);
  }
  const access = await accessFor(emulator, request.headers.authorization, adminToken);
  if (access) {
    grantAccess(request, access);
    return null;
  }
  // The hit's own count decides: of failures racing past the check above (several processes, or
  // requests in flight together), only the first 30 of the minute answer 401, the rest 429.
  const hit = await windows.hit('admin_failures', request.ip, now);
  return hit.allowed ? new ApiError('unauthenticated', REFUSED) : rateLimited(hit.retryAfterSeconds);
}

/**
 * The control API's onRequest check. Without --admin-token (loopback) everything is open and nothing
 * is looked up. The panel's page and assets hold no data and are served to anyone (a browser cannot
 * send a Bearer header when it opens a page); the routes it reads its data from need a token.
 */
export function controlAuthentication(emulator: Emulator) {
  const adminToken = emulator.options.adminToken;
  return (request: FastifyRequest, reply: FastifyReply, next: (error?: Error) => void): void => {
    const config = request.routeOptions.config;
    // The panel's page, and the routes of people outside the sandbox (access requests, public keys).
    if (!adminToken || config?.panelPublic === true || config?.tokenless === true) return next();
    authenticate(emulator, adminToken, request).then((refused) => (refused ? void sendError(request, reply, refused) : next()), next);
  };
}
