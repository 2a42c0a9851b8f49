import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import { isJsonContentType } from '../http/body.js';
import type { HostPolicy } from '../http/host-check.js';
import { sendError } from '../http/reply.js';
import { CONTROL_ROUTES } from './routes.js';
import { rateLimited } from '../http/env-plugin.js';
import { WindowCounter } from '../http/rate-limit.js';
import { LIMITS } from '../../src/contract/limits.js';

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '');
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

const READS = new Set(['GET', 'HEAD']);

/**
 * A webhook delivery of an emulator (spec: Webhook delivery headers). Loopback receivers are allowed,
 * so a delivery can reach another emulator of the same machine on another port: it must not change
 * that one's state (its own address is refused by the sender). Image downloads are GETs, reads only.
 */
function isWebhookDelivery(request: FastifyRequest): boolean {
  const h = request.headers;
  return h['x-service-signature'] !== undefined || h['x-service-delivery-id'] !== undefined || /^Service-Webhooks\//i.test(h['user-agent'] ?? '');
}

const WEBHOOK_REFUSED = 'Una entrega de webhook no puede usar la API de control de un emulador.';

/**
 * DESIGN, Safety of a local dev server — a state-changing control call must come from the developer's
 * tools, not from a web page: a browser's cross-site request says so (`Origin` not one of the
 * emulator's names, or `Sec-Fetch-Site: cross-site`), and a form or `no-cors` fetch cannot send
 * `Content-Type: application/json`, which is therefore required even without a body.
 */
function refuseWebPageWrites(request: FastifyRequest, hosts: HostPolicy): ApiError | null {
  if (READS.has(request.method)) return null;
  if (isWebhookDelivery(request)) return new ApiError('host_not_allowed', WEBHOOK_REFUSED);
  const { origin, host } = request.headers;
  if (request.headers['sec-fetch-site'] === 'cross-site') return ApiError.of('host_not_allowed');
  if (origin !== undefined && !hosts.originAllowed(origin, host)) return ApiError.of('host_not_allowed');
  if (!isJsonContentType(request.headers['content-type'])) {
    return ApiError.of('malformed_json', undefined, 'La API de control requiere Content-Type: application/json en toda escritura, también sin cuerpo.');
  }
  return null;
}

/**
 * spec: Authentication 5, applied to the admin token too — after 30 failures per minute from one IP,
 * every control request from it is 429 `rate_limited` until the minute ends, so a token cannot be
 * guessed at hundreds of tries a second. Real minutes, not the emulator's clock: a manual clock
 * that nobody advances would never end the block. Not lifted by `--limits off`, which is about the
 * API's limits that integrators test against, not the emulator's own guard.
 */
const tokenFailures = () => new WindowCounter(LIMITS.authFailuresPerMinute);

/** The control API under /_emulator: the merchant panel, the customer and the sandbox tools. */
export function controlPlugin(emulator: Emulator, hosts: HostPolicy) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const token = emulator.options.adminToken;
    const failures = tokenFailures();
    // Callback hooks: no promise per request.
    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      // The panel page and its assets hold no data (a browser cannot send a Bearer header to open a page).
      const panelPage = (request.routeOptions.config as { panelPublic?: boolean }).panelPublic === true;
      if (token && !panelPage) {
        const now = Date.now();
        if (failures.exhausted(request.ip, now)) return sendError(request, reply, rateLimited(failures.hit(request.ip, now).retryAfterSeconds));
        if (!tokenMatches(request.headers.authorization, token)) {
          failures.hit(request.ip, now);
          return sendError(request, reply, new ApiError('unauthenticated', 'Token de administración ausente o inválido.'));
        }
      }
      const refused = refuseWebPageWrites(request, hosts);
      if (refused) return sendError(request, reply, refused);
      done();
    });
    for (const register of CONTROL_ROUTES) register(app, emulator);
  };
}
