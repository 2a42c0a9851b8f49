import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { EmulatorControl, MerchantClient, type MerchantClientOptions } from '../../src/client/index.js';
import { startTestEmulator, type TestEmulator } from './emulator.js';

/** An emulator with a MerchantClient on its seeded sandbox store and an EmulatorControl. */
export interface ClientRig {
  emu: TestEmulator;
  client: MerchantClient;
  control: EmulatorControl;
  /** Headers of every request the client sent, as they left (lower-case names). */
  sent: { method: string; path: string; headers: Record<string, string> }[];
  /** Another client on the same emulator (closed by `close()`). */
  makeClient(options?: Partial<MerchantClientOptions>): MerchantClient;
  close(): Promise<void>;
}

/** A dispatcher that records the outgoing request headers, then sends through a keep-alive Agent. */
export function recordingDispatcher(sent: ClientRig['sent']): Dispatcher {
  return new Agent().compose((dispatch) => (opts, handler) => {
    sent.push({ method: opts.method, path: opts.path, headers: headerRecord(opts.headers) });
    return dispatch(opts, handler);
  });
}

function headerRecord(headers: Dispatcher.DispatchOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const entries: [string, unknown][] = Array.isArray(headers)
    ? (headers as string[]).flatMap((v, i, a) => (i % 2 === 0 ? [[v, a[i + 1]] as [string, unknown]] : []))
    : Object.entries(headers as Record<string, unknown>);
  for (const [name, value] of entries) out[name.toLowerCase()] = String(value);
  return out;
}

/** Backoff shrunk to milliseconds so retry tests run fast; Retry-After is still honoured. */
export const FAST_BACKOFF = { baseMs: 1, maxMs: 4, jitter: 0 };

export async function startClientRig(options: Partial<MerchantClientOptions> = {}): Promise<ClientRig> {
  const emu = await startTestEmulator();
  const sent: ClientRig['sent'] = [];
  const clients: MerchantClient[] = [];
  const makeClient = (extra: Partial<MerchantClientOptions> = {}) => {
    const c = new MerchantClient({ baseUrl: emu.running.sandbox_base_url, credential: emu.test.credential, backoff: FAST_BACKOFF, ...options, ...extra });
    clients.push(c);
    return c;
  };
  const dispatcher = recordingDispatcher(sent);
  const client = makeClient({ dispatcher });
  const control = EmulatorControl.fromBaseUrl(emu.running.sandbox_base_url);
  return {
    emu, client, control, sent, makeClient,
    async close() {
      for (const c of clients) await c.close();
      await dispatcher.close();
      await control.close();
      await emu.close();
    },
  };
}

/** A tiny HTTP server for what the emulator cannot do (extra fields, dropped sockets); counts connections. */
export interface FakeServer {
  url: string;
  connections: number;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startFakeServer(handler: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const fake: FakeServer = {
    url: '',
    connections: 0,
    requests: [],
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
  const server = http.createServer((req, res) => {
    const n = fake.requests.length;
    fake.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => handler(req, res, n));
  });
  server.on('connection', (socket) => {
    fake.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** Writes a JSON answer with an `X-Request-Id`. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req_fake', ...headers });
  res.end(JSON.stringify(body));
}
