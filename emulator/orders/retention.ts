import type { Emulator } from '../emulator.js';
import { purgeExpiredEvents } from './feed.js';

const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * spec: Feed, 30-day retention on the emulator's clock. Reads already hide older events; this
 * removes them so the databases do not grow forever: when the clock is advanced and, for the system
 * clock, every few minutes.
 */
export function eventRetentionService(emulator: Emulator): void {
  const sweep = () => {
    for (const env of Object.values(emulator.envs)) void purgeExpiredEvents(env).catch(() => undefined);
  };
  const stop = emulator.clock.onAdvance(sweep);
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();
  emulator.onClose(() => {
    stop();
    clearInterval(timer);
  });
}
