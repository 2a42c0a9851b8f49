import { request as undiciRequest } from 'undici';

// HTTP calls of the tests and their helpers as fetch() makes them, for a fifth of its CPU (issue 27).
// No import of the emulator: the zoo's ERP threads bundle this file (erps/worker-entry.ts).

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is (not JSON-encoded). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Defaults to the seeded store's credential of the environment; `null` sends none. */
  credential?: string | null;
  idempotencyKey?: string;
}

/**
 * The headers fetch() adds to every request (undici's defaults): the requests of these helpers stay
 * the ones the tests were written against (Accept-Language picks the access page's language).
 */
const FETCH_HEADERS: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * One request as fetch() sends it (its default headers, a text body as `text/plain;charset=UTF-8`,
 * redirects followed), through undici's `request`: real HTTP on a kept-alive connection, for a fifth
 * of fetch()'s CPU (its web streams and Request/Response objects; issue 27: the suite sends tens of
 * thousands of requests through these helpers).
 */
export async function request<T = any>(url: string, method: string, options: CallOptions & { credential?: string | null } = {}): Promise<Response<T>> {
  const headers: Record<string, string> = { ...FETCH_HEADERS };
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  if (options.credential) headers.authorization = `Bearer ${options.credential}`;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  if (body !== undefined) headers['content-type'] ??= 'text/plain;charset=UTF-8';
  let res = await undiciRequest(url, { method, headers, body });
  // fetch's redirect rules: a 303, or a 301/302 to a POST, goes on as a GET without a body.
  for (let hops = 0; REDIRECTS.has(res.statusCode) && res.headers.location !== undefined; hops++) {
    if (hops === 20) throw new Error(`${method} ${url}: more than 20 redirects`);
    await res.body.dump();
    url = new URL(String(res.headers.location), url).href;
    if (res.statusCode === 303 ? method !== 'HEAD' : [301, 302].includes(res.statusCode) && method === 'POST') {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
    res = await undiciRequest(url, { method, headers, body });
  }
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, headers: headersOf(res.headers), body: parsed as T };
}

/** undici's header record as fetch's Headers (a repeated header is one value per line, as it came). */
function headersOf(record: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  return headers;
}
