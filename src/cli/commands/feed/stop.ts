/** The reason a stop signal aborts with, told apart from failures by `isStop`. */
export class Stopped extends Error {
  constructor(readonly signal: NodeJS.Signals | 'fatal') {
    super(`stopped by ${signal}`);
    this.name = 'Stopped';
  }
}

export function isStop(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted && (error === signal.reason || error instanceof Stopped || (error as Error)?.name === 'AbortError');
}

/**
 * SIGINT and SIGTERM abort `controller` (with a `Stopped` reason) instead of killing the process,
 * so the work in hand ends at a clean point and the state is saved; the action then returns and
 * the process exits 0. Returns a function that removes the handlers.
 */
export function abortOnSignals(controller: AbortController, onStop: (signal: NodeJS.Signals) => void = () => {}): () => void {
  const stop = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    onStop(signal);
    controller.abort(new Stopped(signal));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
}
