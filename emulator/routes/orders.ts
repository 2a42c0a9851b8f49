import type { FastifyInstance } from 'fastify';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';

export function ordersRoutes(_app: FastifyInstance, _env: EnvContext, _emulator: Emulator): void {}
