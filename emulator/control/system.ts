import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';
import { formatDate } from '../../src/contract/dates.js';
import { describeState } from './state.js';

export function systemRoutes(app: FastifyInstance, emulator: Emulator): void {
  app.get('/health', async () => ({ data: { ok: true } }));

  app.post('/reset', async () => {
    emulator.reset();
    return { data: { reset: true, clock: clockView(emulator) } };
  });

  app.get('/state', async () => ({ data: describeState(emulator) }));

  app.get('/clock', async () => ({ data: clockView(emulator) }));
}

export function clockView(emulator: Emulator) {
  return {
    now: formatDate(emulator.clock.now()),
    mode: emulator.clock.mode,
    offset_seconds: Math.round(emulator.clock.offsetMs() / 1000),
  };
}
