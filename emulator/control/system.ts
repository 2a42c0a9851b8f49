import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';
import { formatDate } from '../../src/contract/dates.js';
import { controlClockAdvance, controlFault } from '../../src/contract/control.js';
import { resetToSeeds } from '../stores/seed.js';
import { controlBody } from '../http/control-body.js';
import { describeState } from './state.js';
import { accessOf, ANY_TOKEN, FILTERED } from '../http/control-access.js';

/**
 * DESIGN: control API — health, reset, state, the clock and injected faults. A store token reads the
 * health, the clock and its own store's state; reset, the clock's moves and faults are the admin's
 * (they change the sandbox for every store).
 */
export function systemRoutes(app: FastifyInstance, emulator: Emulator): void {
  app.get('/health', ANY_TOKEN, async () => ({ data: { ok: true } }));

  app.post('/reset', async () => {
    await resetToSeeds(emulator);
    return { data: { reset: true, clock: clockView(emulator) } };
  });

  // A store token sees its own store only (DESIGN: team sandbox).
  app.get('/state', FILTERED, async (request) => ({ data: await describeState(emulator, accessOf(request)) }));

  app.get('/clock', ANY_TOKEN, async () => ({ data: clockView(emulator) }));

  // DESIGN: moves the emulator's time; the clock's listeners (retries, expiries) run inside advance().
  app.post('/clock/advance', async (request) => {
    const { seconds } = controlBody(controlClockAdvance, request.body);
    await emulator.advanceClock(seconds * 1000);
    return { data: clockView(emulator) };
  });

  const faults = emulator.storage.coordination.faults;
  app.get('/faults', async () => ({ data: await faults.list() }));

  app.post('/faults', async (request, reply) => {
    const fault = await faults.add(controlBody(controlFault, request.body));
    reply.code(201);
    return { data: fault };
  });

  app.delete('/faults', async () => ({ data: { cleared: await faults.clear() } }));
}

export function clockView(emulator: Emulator) {
  return {
    now: formatDate(emulator.clock.now()),
    mode: emulator.clock.mode,
    offset_seconds: Math.round(emulator.clock.offsetMs() / 1000),
  };
}
