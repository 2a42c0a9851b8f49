import type { Emulator } from '../emulator.js';
import { attachImageQueue, imageQueueOf } from './queue.js';

/** The background image fetcher: one queue per environment, cancelled on reset and close. */
export function imageService(emulator: Emulator): void {
  const queues = Object.values(emulator.envs).map((env) => attachImageQueue(env));
  emulator.onReset(() => queues.forEach((q) => q.abort()));
  emulator.onClose(() => queues.forEach((q) => q.abort()));
}

/** Resolves once no download is pending in any environment (control route `POST /_emulator/images/drain`). */
export async function drainImages(emulator: Emulator): Promise<number> {
  let drained = 0;
  for (;;) {
    const queues = Object.values(emulator.envs).map((env) => imageQueueOf(env)).filter((q) => q !== undefined);
    const waiting = queues.reduce((n, q) => n + q.size, 0);
    if (waiting === 0) return drained;
    drained += waiting;
    await Promise.all(queues.map((q) => q.drain()));
  }
}
