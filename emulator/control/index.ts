import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import { isJsonContentType } from '../http/body.js';
import type { HostPolicy } from '../http/host-check.js';
import { sendError } from '../http/reply.js';
import { controlAuthentication } from './auth.js';
import { authorize } from '../http/control-access.js';

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

/** One group of control routes (an aggregate's own, or the sandbox's cross-cutting ones). */
export type ControlRegistrar = (app: FastifyInstance, emulator: Emulator) => void;

/**
 * The control API under /_emulator: the merchant panel, the customer and the sandbox tools, with the
 * routes the root hands in (emulator/routes.ts).
 */
export function controlPlugin(emulator: Emulator, hosts: HostPolicy, routes: readonly ControlRegistrar[]) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    // Callback hooks: no promise per request on an emulator without --admin-token.
    app.addHook('onRequest', controlAuthentication(emulator));
    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const refused = refuseWebPageWrites(request, hosts);
      if (refused) return sendError(request, reply, refused);
      done();
    });
    // After the body is parsed: the simulator names its store there.
    app.addHook('preHandler', authorize(emulator));
    for (const register of routes) register(app, emulator);
  };
}
