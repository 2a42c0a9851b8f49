/**
 * At most `size` sends under way per receiver origin. The connection pool holds that many sockets
 * per host, so a send that holds a slot gets a socket at once: its timeout and its
 * `X-Service-Timestamp` count from the real send, not from a wait in the pool's queue.
 */
export class HostSlots {
  private readonly hosts = new Map<string, { active: number; waiting: (() => void)[] }>();

  constructor(readonly size: number) {}

  /** Resolves with a release function once a slot is free, or with null if `signal` aborts first. */
  acquire(key: string, signal?: AbortSignal): Promise<(() => void) | null> {
    if (signal?.aborted) return Promise.resolve(null);
    let host = this.hosts.get(key);
    if (!host) this.hosts.set(key, (host = { active: 0, waiting: [] }));
    const entry = host;
    const release = this.releaser(key);
    if (entry.active < this.size) {
      entry.active++;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(release); // the releasing send handed its slot over: `active` stays the same
      };
      const onAbort = () => {
        const i = entry.waiting.indexOf(grant);
        if (i >= 0) entry.waiting.splice(i, 1);
        resolve(null);
      };
      entry.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Sends under way plus sends waiting, for one origin (tests and diagnostics). */
  load(key: string): { active: number; waiting: number } {
    const host = this.hosts.get(key);
    return { active: host?.active ?? 0, waiting: host?.waiting.length ?? 0 };
  }

  private releaser(key: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const host = this.hosts.get(key);
      if (!host) return;
      const next = host.waiting.shift();
      if (next) return next();
      host.active--;
      if (host.active === 0) this.hosts.delete(key);
    };
  }
}
