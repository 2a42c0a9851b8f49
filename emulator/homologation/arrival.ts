import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

// DESIGN: retry timing is measured from the moment the refused answer was sent to the moment the
// retry's first bytes arrived. JavaScript sees bytes only when the event loop reads them: a loop
// busy for a second (a session making its orders, a loaded machine) reads an immediate retry a
// second late, and an eager ERP would seem to have waited. So each request carries two times: when
// the loop read it (`at`, the latest its bytes can have arrived) and a moment before which they
// cannot have arrived (`after`), from the loop's own progress.

/** How often the loop's progress is noted: the precision of `after` on an idle loop. */
const TICK_MS = 10;

const ARRIVAL = Symbol('merchant-kit.arrival');
/** On a socket: the progress noted when it was accepted, until its first request is stamped. */
const ACCEPTED = Symbol('merchant-kit.accepted');

/** When a request's first bytes arrived, as closely as the loop can tell (real ms since the epoch). */
export interface Arrival {
  /** The loop read the request (its `request` event): the bytes were there by then. */
  at: number;
  /** The bytes cannot have arrived before this: a loop iteration that polled for them before it ended. */
  after: number;
}

type Marked = IncomingMessage & { [ARRIVAL]?: Arrival };
type Accepted = Socket & { [ACCEPTED]?: number };

/**
 * Notes the loop's progress: a timer fires every TICK_MS (the timers phase) and leaves a mark for
 * the check phase of the same iteration, which comes after that iteration's poll. Bytes read by a
 * later poll were not there when that earlier poll looked, so they arrived after the tick's time.
 * The timer is unref'd: it never keeps a process alive.
 */
class LoopProgress {
  /** The tick of the latest iteration whose poll phase is over. */
  polledAfter = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private users = 0;

  start(): void {
    if (this.users++ > 0) return;
    this.polledAfter = Date.now();
    this.timer = setInterval(() => {
      const tick = Date.now();
      setImmediate(() => (this.polledAfter = tick));
    }, TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (--this.users > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
  }
}

const progress = new LoopProgress();

/**
 * Stamps every request of `server` with its arrival, before any other listener runs (fastify's
 * handler comes after): `at` now, `after` from the loop's progress. The first request of a new
 * connection takes `after` from when the connection was accepted: a new socket's bytes are read
 * an iteration after its accept, and may have come with it. Stops with the server.
 */
export function stampArrivals(server: Server): void {
  progress.start();
  server.prependListener('connection', (socket: Accepted) => {
    socket[ACCEPTED] = progress.polledAfter;
  });
  server.prependListener('request', (req: Marked) => {
    const socket = req.socket as Accepted;
    const accepted = socket[ACCEPTED];
    socket[ACCEPTED] = undefined;
    req[ARRIVAL] = { at: Date.now(), after: Math.min(accepted ?? Infinity, progress.polledAfter) };
  });
  server.once('close', () => progress.stop());
}

/** The arrival stamped on a request (a request made without the server, as by `inject`, gets now). */
export function arrivalOf(req: IncomingMessage): Arrival {
  const stamped = (req as Marked)[ARRIVAL];
  if (stamped) return stamped;
  const now = Date.now();
  return { at: now, after: now };
}
