import { usageError } from '../../errors.js';

/** DESIGN: emulator-only commands find the control API from the base URL (flag, env, default). */
const DEFAULT_EMULATOR_URL = 'http://127.0.0.1:4010';

/** `<origin>/_emulator` of `--base-url`, `MERCHANT_KIT_BASE_URL` or the default emulator address. */
export function controlUrl(baseUrl: string | undefined): string {
  const given = baseUrl ?? process.env.MERCHANT_KIT_BASE_URL ?? DEFAULT_EMULATOR_URL;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw usageError(`Not a URL: ${given}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`The base URL must be http(s): ${given}`);
  return `${url.origin}/_emulator`;
}

/** The control API's headers: JSON (required on every write) and the admin token when there is one. */
export function controlHeaders(adminToken: string | undefined): Record<string, string> {
  const token = adminToken ?? process.env.MERCHANT_KIT_ADMIN_TOKEN;
  return { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
}
