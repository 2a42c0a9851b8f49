import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';
import { systemRoutes } from './system.js';

export type ControlRegistrar = (app: FastifyInstance, emulator: Emulator) => void;

/** Every group of control routes. */
export const CONTROL_ROUTES: ControlRegistrar[] = [systemRoutes];
