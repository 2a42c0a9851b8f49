import { Agent } from 'node:http';

/** How long an emulator that refused a connection sits out before it is tried in turn again. */
export const DOWN_MS = 3_000;

/** One emulator process behind the balancer. */
export interface Upstream {
  /** `http://127.0.0.1:4011`: its origin, as given with `--to`. */
  origin: string;
  hostname: string;
  port: number;
  /** Keep-alive connections to it, reused across requests. */
  agent: Agent;
}

/** An `--to` origin as an upstream with its own connection pool. */
export function upstreamOf(origin: string): Upstream {
  const url = new URL(origin);
  return {
    origin: url.origin,
    // `[::1]` as a URL writes it; a socket wants the bare address.
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port || 80),
    // An idle connection is closed before the emulator would close it (its Keep-Alive hint, or 60 s):
    // a request is rarely sent on a connection the emulator is closing.
    agent: new Agent({ keepAlive: true, timeout: 60_000 }),
  };
}

/**
 * The emulators taken in turn, one step per request. One that refused a connection is marked down
 * for DOWN_MS: it comes after the others in a request's order, tried only when every other one
 * failed too, so a sandbox whose processes all restarted answers again as soon as one is back.
 */
export class UpstreamPool {
  private turn = 0;
  private readonly downUntil = new Map<Upstream, number>();

  constructor(
    readonly upstreams: readonly Upstream[],
    private readonly downMs = DOWN_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The order in which this request tries the upstreams: the next in turn first, those marked down last. */
  order(): Upstream[] {
    const n = this.upstreams.length;
    const start = this.turn;
    this.turn = (this.turn + 1) % n;
    const rotated = Array.from({ length: n }, (_, i) => this.upstreams[(start + i) % n]!);
    const now = this.now();
    const up = rotated.filter((u) => !this.isDown(u, now));
    return up.length === n ? up : [...up, ...rotated.filter((u) => this.isDown(u, now))];
  }

  /** Marks the upstream down; true when it was up until now (worth a log line). */
  markDown(upstream: Upstream): boolean {
    const was = this.isDown(upstream, this.now());
    this.downUntil.set(upstream, this.now() + this.downMs);
    return !was;
  }

  /** Clears a down mark after an answer; true when it was marked (worth a log line). */
  markUp(upstream: Upstream): boolean {
    return this.downUntil.delete(upstream);
  }

  private isDown(upstream: Upstream, now: number): boolean {
    return (this.downUntil.get(upstream) ?? 0) > now;
  }

  close(): void {
    for (const u of this.upstreams) u.agent.destroy();
  }
}
