import { isLoopbackHost } from '../../../contract/webhooks.js';
import { ExitError } from '../../errors.js';

/** The few calls `--configure` and `--backfill` make, with the base URL and credential of DESIGN's CLI surface. */
export interface ApiTarget {
  baseUrl: string;
  credential: string;
}

/** DESIGN: flags, then the environment; base URLs must be https except loopback hosts; the credential never from a plain flag. */
export function apiTarget(baseUrlFlag: string | undefined, env: NodeJS.ProcessEnv = process.env): ApiTarget {
  const raw = baseUrlFlag ?? env.MERCHANT_KIT_BASE_URL;
  if (!raw) throw new ExitError('Falta la dirección base de la API: use --base-url o MERCHANT_KIT_BASE_URL.', 2);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ExitError(`La dirección base no es una URL válida: ${raw}`, 2);
  }
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)))) {
    throw new ExitError('La dirección base debe usar https:// (se admite http:// solo hacia localhost, 127.0.0.0/8 o [::1]).', 2);
  }
  const credential = env.MERCHANT_KIT_CREDENTIAL?.trim();
  if (!credential) throw new ExitError('Falta la credencial: defina MERCHANT_KIT_CREDENTIAL.', 2);
  return { baseUrl: url.href.replace(/\/+$/, ''), credential };
}

interface ErrorBody {
  error?: { code?: string; message?: string; request_id?: string };
}

/** One JSON call; an API error becomes exit 1 with its code, Spanish message and request id (never the credential). */
export async function call<T>(target: ApiTarget, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  let res: Response;
  try {
    res = await fetch(`${target.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${target.credential}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const err = error as Error & { cause?: { code?: string } };
    throw new ExitError(`No se pudo conectar con ${target.baseUrl}: ${err.cause?.code ?? err.message}`);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (res.status >= 400) {
    const e = (parsed as ErrorBody | undefined)?.error;
    const request = e?.request_id ? ` (request_id ${e.request_id})` : '';
    throw new ExitError(`${method} ${path} respondió ${res.status} ${e?.code ?? ''}: ${e?.message ?? 'sin detalle'}${request}`.replace('  ', ' '));
  }
  return { status: res.status, body: parsed as T };
}

interface WebhookRecord {
  events: string[];
  signing_secret?: string;
}

/**
 * Points the integration's webhook at `url`, keeping its event list (every type when it is new).
 * Returns the signing secret when the webhook was created (the only answer that carries it).
 */
export async function configureWebhook(target: ApiTarget, url: string): Promise<{ created: boolean; secret: string | null }> {
  let events = ['*'];
  try {
    events = (await call<{ data: WebhookRecord }>(target, 'GET', '/webhook')).body.data.events;
  } catch (error) {
    if (!(error instanceof ExitError) || !/ 404 /.test(error.message)) throw error;
  }
  const res = await call<{ data: WebhookRecord }>(target, 'PUT', '/webhook', { url, events });
  return { created: res.status === 201, secret: res.body.data.signing_secret ?? null };
}

interface FeedPage {
  data: Record<string, unknown>[];
  next_cursor: string | null;
  has_more: boolean;
}

/** The whole event feed from its oldest available event, one page of 200 at a time. */
export async function* readFeed(target: ApiTarget): AsyncGenerator<Record<string, unknown>> {
  let after: string | null = null;
  for (;;) {
    const query: string = after ? `?limit=200&after=${encodeURIComponent(after)}` : '?limit=200';
    const page: FeedPage = (await call<FeedPage>(target, 'GET', `/events${query}`)).body;
    yield* page.data;
    if (!page.has_more || !page.next_cursor) return;
    after = page.next_cursor;
  }
}
