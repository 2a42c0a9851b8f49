import http from 'node:http';
import https from 'node:https';
import { HostSlots } from './host-slots.js';
import { urlPort, type OutboundGuard } from '../net/outbound.js';

export interface SendResult {
  succeeded: boolean;
  responseStatus: number | null;
  error: 'timeout' | 'connection_reset' | 'connection_refused' | 'connection_error' | null;
  durationMs: number;
}

export interface Agents {
  http: http.Agent;
  https: https.Agent;
  /** Sends under way per receiver origin, capped at the pool's sockets per host. */
  slots: HostSlots;
}

/** Keep-alive agents, one pair per emulator: a receiver answering at once sees thousands of deliveries per second. */
export function createAgents(maxSockets = 64): Agents {
  return {
    http: new http.Agent({ keepAlive: true, maxSockets }),
    https: new https.Agent({ keepAlive: true, maxSockets }),
    slots: new HostSlots(maxSockets),
  };
}

function errorKind(error: NodeJS.ErrnoException): SendResult['error'] {
  // A target the emulator refuses to reach reads like a closed port: nothing is learnt about what listens there.
  if (error.code === 'ERR_OUTBOUND_REFUSED') return 'connection_refused';
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return 'connection_reset';
  if (error.code === 'ECONNREFUSED') return 'connection_refused';
  return 'connection_error';
}

/**
 * One POST to the receiver. spec: Events, Webhook delivery 1 — any 2xx within the timeout (real
 * time) succeeds; any other status (redirects are not followed), a timeout or a connection error
 * fails. Never throws.
 *
 * The send first waits for a slot of the receiver's origin (see HostSlots); only then are the
 * headers built (`headers()` signs with the real time of sending) and the timeout started, so
 * waiting behind other deliveries to the same host never counts against the receiver.
 *
 * With a `guard`, the connection is refused (as `connection_refused`) when the target is the
 * emulator itself or not a public or loopback address, checked on the resolved address.
 */
export async function postWebhook(
  agents: Agents,
  url: string,
  headers: () => Record<string, string>,
  body: string,
  timeoutMs: number,
  signal?: AbortSignal,
  guard?: OutboundGuard,
): Promise<SendResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { succeeded: false, responseStatus: null, error: 'connection_error', durationMs: 0 };
  }
  if (guard?.refusalOf(target.hostname, urlPort(target))) {
    return { succeeded: false, responseStatus: null, error: 'connection_refused', durationMs: 0 };
  }
  const release = await agents.slots.acquire(target.origin, signal);
  // Aborted while waiting (reset or shutdown): nobody records this result.
  if (!release) return { succeeded: false, responseStatus: null, error: 'connection_error', durationMs: 0 };
  return send(agents, target, headers, body, timeoutMs, release, signal, guard);
}

function send(
  agents: Agents,
  target: URL,
  headers: () => Record<string, string>,
  body: string,
  timeoutMs: number,
  release: () => void,
  signal?: AbortSignal,
  guard?: OutboundGuard,
): Promise<SendResult> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const started = performance.now();
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (done) return;
      done = true;
      resolve({ ...r, durationMs: Math.round(performance.now() - started) });
    };
    // The slot is freed when the request is over (response read, error or destroyed), which also
    // frees its socket; a receiver that answers headers but never ends the body is cut at the timeout.
    const over = () => {
      if (timer) clearTimeout(timer);
      release();
    };
    let req: http.ClientRequest;
    try {
      const payload = Buffer.from(body);
      const secure = target.protocol === 'https:';
      req = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        headers: { ...headers(), 'Content-Length': String(payload.length) },
        signal,
        // Checked when a new socket resolves the name; a kept-alive socket was checked when it opened.
        ...(guard ? { lookup: guard.lookupFor(urlPort(target)) } : {}),
      });
      timer = setTimeout(() => {
        finish({ succeeded: false, responseStatus: null, error: 'timeout' });
        req.destroy();
      }, timeoutMs);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        finish({ succeeded: status >= 200 && status < 300, responseStatus: status, error: null });
      });
      req.on('error', (error) => finish({ succeeded: false, responseStatus: null, error: errorKind(error) }));
      req.on('close', () => {
        over();
        finish({ succeeded: false, responseStatus: null, error: 'connection_error' });
      });
      req.end(payload);
    } catch {
      over();
      finish({ succeeded: false, responseStatus: null, error: 'connection_error' });
    }
  });
}

export function closeAgents(agents: Agents): void {
  agents.http.destroy();
  agents.https.destroy();
}
