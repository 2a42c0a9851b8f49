import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';

export function catalogControl(_app: FastifyInstance, _emulator: Emulator): void {}
