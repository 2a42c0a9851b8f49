// The benches' JSON call to the emulator (API or control API): throws on any answer of 300 or more.

/** `body` as JSON; without one, a POST-like call sends `{}` (a JSON content type with no body is a 400). */
export async function call(url, method, credential, body, headers = {}) {
  const h = { 'content-type': 'application/json', ...headers };
  if (credential) h.authorization = `Bearer ${credential}`;
  const payload = body === undefined ? (method === 'GET' ? undefined : '{}') : JSON.stringify(body);
  const res = await fetch(url, { method, headers: h, body: payload });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}
