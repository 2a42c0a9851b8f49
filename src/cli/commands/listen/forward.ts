import { ExitError } from '../../errors.js';
import { isLoopbackHost } from '../../../contract/hosts.js';

/** Under the service's 10 s delivery timeout, so the 502 reaches it and the delivery is retried. */
const FORWARD_TIMEOUT_MS = 9_000;

/** DESIGN: base URLs must be https except loopback hosts; the same rule for where we forward. */
export function parseForwardUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ExitError(`--forward-to is not a valid URL: ${value}`, 2);
  }
  if (url.username || url.password) throw new ExitError('--forward-to must not carry a user name or password.', 2);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url;
  throw new ExitError('--forward-to must use https:// (http:// is accepted only for localhost, 127.0.0.0/8 and [::1]).', 2);
}

/** Headers passed on as received: the signature set and the content type. */
export function forwardedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name.startsWith('x-service-') || name === 'content-type' || name === 'user-agent') out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export type ForwardResult = { ok: true; status: number; body: string } | { ok: false; error: string };

/** POSTs the raw bytes to the app; redirects are not followed (the service does not follow them either). */
export async function forward(url: URL, headers: Record<string, string>, rawBody: Buffer): Promise<ForwardResult> {
  try {
    const res = await fetch(url, { method: 'POST', headers, body: new Uint8Array(rawBody), redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    const body = await res.text();
    return { ok: true, status: res.status, body: body.slice(0, 1000) };
  } catch (error) {
    const err = error as Error & { cause?: { code?: string } };
    if (err.name === 'TimeoutError') return { ok: false, error: `no answer within ${FORWARD_TIMEOUT_MS / 1000} s` };
    return { ok: false, error: err.cause?.code ?? err.message };
  }
}
