/**
 * The endpoint path with its `{name}` parts filled in, each URL-encoded.
 * @example fillPath('/orders/{order_id}/ack', { order_id: 'ord_1' }) === '/orders/ord_1/ack'
 */
export function fillPath(template: string, params: Record<string, unknown> | undefined): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`Missing path parameter ${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}

/**
 * The query string (with its `?`, or empty): arrays become comma-separated lists (`status=pending,accepted`),
 * booleans `true`/`false`, undefined and null values are left out.
 * @example queryString({ status: ['pending', 'accepted'], limit: 50 }) === '?status=pending%2Caccepted&limit=50'
 */
export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    search.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** The base URL without a trailing slash (`http://host/sandbox/v1/` → `http://host/sandbox/v1`). */
export function normalizeBaseUrl(baseUrl: string | URL): string {
  const url = new URL(String(baseUrl));
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`Base URL must be http(s): ${url.protocol}`);
  // A user or password in the URL would be printed with it (toJSON, errors): refused, not stripped.
  if (url.username !== '' || url.password !== '') throw new TypeError('Base URL must not carry a user or password');
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '');
}
