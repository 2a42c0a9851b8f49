import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay in front of a server (a database) that a test can cut, as a network outage does: `cut()`
 * ends every relayed connection and closes each new one at once; `restore()` relays again. `refused`
 * counts connections closed while cut (what a client trying to reconnect meets).
 */
export interface TcpCut {
  /** `host:port` of the relay. */
  readonly address: string;
  readonly port: number;
  readonly refused: number;
  cut(): void;
  restore(): void;
  /** Resolves once at least `n` connections were refused since the start. */
  refusedAtLeast(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpCut(target: { host: string; port: number }): Promise<TcpCut> {
  const open = new Set<net.Socket>();
  let down = false;
  let refused = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = net.createServer((client) => {
    if (down) {
      refused++;
      for (const w of [...waiters]) if (refused >= w.n) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    port,
    get refused() {
      return refused;
    },
    cut() {
      down = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    refusedAtLeast(n) {
      if (refused >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    close() {
      for (const s of open) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The same database URL through the relay. */
export function throughCut(url: string, cut: TcpCut): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(cut.port);
  return u.toString();
}
