import type { ApiError } from '../../../client/errors.js';
import type { EmulatorControl } from '../../../client/emulator-control.js';
import { usageError } from '../../errors.js';

/** DESIGN: emulator-only commands find the control API from the base URL (flag, env, profile, default). */
const DEFAULT_EMULATOR_URL = 'http://127.0.0.1:4010';

/**
 * The help of every emulator-only command's `--admin-token`: either kind of token (DESIGN: team
 * sandbox) — the admin's, or a store's (`mks_…`), which is enough for the work on that store.
 */
export const ADMIN_TOKEN_HELP = "the control API's token of an emulator started with --admin-token: that token, or your store's token (mks_…) (env MERCHANT_KIT_ADMIN_TOKEN)";

/** `<origin>/_emulator` of the given base URL, else `MERCHANT_KIT_BASE_URL`, else the default emulator address. */
export function controlUrl(baseUrl: string | undefined): string {
  const given = baseUrl || process.env.MERCHANT_KIT_BASE_URL || DEFAULT_EMULATOR_URL;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw usageError(`Not a URL: ${given}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`The base URL must be http(s): ${given}`);
  return `${url.origin}/_emulator`;
}

/**
 * The control client of the emulator at `controlUrl(baseUrl)`, with the admin token of the flag or
 * `MERCHANT_KIT_ADMIN_TOKEN` (loaded lazily: the client is not needed for `--help`).
 */
export async function openControl(admin: string, adminToken: string | undefined): Promise<EmulatorControl> {
  const { EmulatorControl } = await import('../../../client/emulator-control.js');
  return EmulatorControl.fromBaseUrl(admin, { adminToken: adminToken ?? process.env.MERCHANT_KIT_ADMIN_TOKEN });
}

/** Why no answer arrived (`ECONNREFUSED`), from a status-0 ApiError's cause. */
export function networkCause(error: ApiError): string {
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? error.message;
}

/** True when the refusal carried the spec's error body (`code`, `message`, `request_id`), not a bare status. */
export function hasErrorBody(error: ApiError): boolean {
  return !error.message.startsWith(`HTTP ${error.status} `);
}
