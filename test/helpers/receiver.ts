import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PATIENCE_MS, withinPatience } from './wait.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Real time of arrival (ms). */
  at: number;
}

/** What the receiver does with one request: answer a status (after `delayMs`), hang, or reset the connection. */
export type Behaviour = { status: number; delayMs?: number; location?: string } | 'hang' | 'reset';

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides per request; `n` counts requests from 0. Default: 200 at once. */
  behave: (req: Received, n: number) => Behaviour;
  /**
   * Resolves when at least `count` requests arrived; fails once `timeoutMs` (PATIENCE_MS by default,
   * grown with the machine's load: helpers/wait.ts) has passed. The limit only bounds a hang.
   */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A local webhook receiver over real HTTP on a free loopback port. */
export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    behave: () => ({ status: 200 }),
    async waitFor(count, timeoutMs = PATIENCE_MS) {
      if (receiver.received.length < count) {
        const arrived = new Promise<void>((resolve) => waiters.push({ count, resolve }));
        await withinPatience(arrived, () => `${count} requests, got ${receiver.received.length}`, timeoutMs);
      }
      return receiver.received;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const n = receiver.received.length;
      receiver.received.push(got);
      for (const w of [...waiters]) if (receiver.received.length >= w.count) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
      const behaviour = receiver.behave(got, n);
      if (behaviour === 'hang') return;
      if (behaviour === 'reset') return void req.socket.destroy();
      const answer = () => {
        if (behaviour.location) res.setHeader('Location', behaviour.location);
        res.writeHead(behaviour.status).end('ok');
      };
      if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
      else answer();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
