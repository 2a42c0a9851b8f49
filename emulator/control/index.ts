import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import { sendError } from '../http/reply.js';
import { CONTROL_ROUTES } from './routes.js';

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '');
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** The control API under /_emulator: the merchant panel, the customer and the sandbox tools. */
export function controlPlugin(emulator: Emulator) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const token = emulator.options.adminToken;
    if (token) {
      app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        if ((request.routeOptions.config as { panelPublic?: boolean }).panelPublic) return; // the panel page itself holds no data
        if (!tokenMatches(request.headers.authorization, token)) {
          return sendError(request, reply, new ApiError('unauthenticated', 'Token de administración ausente o inválido.'));
        }
      });
    }
    for (const register of CONTROL_ROUTES) register(app, emulator);
  };
}
