import http from 'node:http';
import https from 'node:https';

export interface SendResult {
  succeeded: boolean;
  responseStatus: number | null;
  error: 'timeout' | 'connection_reset' | 'connection_refused' | 'connection_error' | null;
  durationMs: number;
}

export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

/** Keep-alive agents, one pair per emulator: a receiver answering at once sees thousands of deliveries per second. */
export function createAgents(maxSockets = 64): Agents {
  return { http: new http.Agent({ keepAlive: true, maxSockets }), https: new https.Agent({ keepAlive: true, maxSockets }) };
}

function errorKind(error: NodeJS.ErrnoException): SendResult['error'] {
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return 'connection_reset';
  if (error.code === 'ECONNREFUSED') return 'connection_refused';
  return 'connection_error';
}

/**
 * One POST to the receiver. spec: Events, Webhook delivery 1 — any 2xx within the timeout (real
 * time) succeeds; any other status (redirects are not followed), a timeout or a connection error
 * fails. Never throws.
 */
export function postWebhook(agents: Agents, url: string, headers: Record<string, string>, body: string, timeoutMs: number, signal?: AbortSignal): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: elapsed() });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      finish({ succeeded: false, responseStatus: null, error: 'connection_error' });
      return;
    }
    const secure = target.protocol === 'https:';
    const payload = Buffer.from(body);
    const req = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      headers: { ...headers, 'Content-Length': String(payload.length) },
      signal,
    });
    const timer = setTimeout(() => {
      finish({ succeeded: false, responseStatus: null, error: 'timeout' });
      req.destroy();
    }, timeoutMs);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      finish({ succeeded: status >= 200 && status < 300, responseStatus: status, error: null });
    });
    req.on('error', (error) => finish({ succeeded: false, responseStatus: null, error: errorKind(error) }));
    req.end(payload);
  });
}

export function closeAgents(agents: Agents): void {
  agents.http.destroy();
  agents.https.destroy();
}
