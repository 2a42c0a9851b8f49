import { ApiError } from '../../../client/errors.js';
import { ExitError } from '../../errors.js';
import { controlUrl, hasErrorBody, networkCause, openControl } from './control-url.js';

export interface ResetOptions {
  baseUrl?: string;
  adminToken?: string;
  json?: boolean;
}

/** `merchant-kit emulator reset`: POST /_emulator/reset — back to the seeded state, same credentials. */
export async function resetAction(options: ResetOptions): Promise<void> {
  const admin = controlUrl(options.baseUrl);
  const control = await openControl(admin, options.adminToken);
  let data: Awaited<ReturnType<typeof control.reset>>;
  try {
    data = await control.reset();
  } catch (error) {
    throw error instanceof ApiError ? refused(error, `${admin}/reset`) : error;
  } finally {
    await control.close();
  }
  if (options.json) process.stdout.write(`${JSON.stringify(data ?? {})}\n`);
  else process.stdout.write(`Emulator reset to its seeded state; the demo credentials stay valid. Clock: ${data?.clock?.now ?? 'unknown'}\n`);
}

function refused(e: ApiError, url: string): ExitError {
  if (e.status === 0) return new ExitError(`Cannot reach the emulator at ${url} (${networkCause(e)}). Is it running? Use --base-url to point at it.`);
  const hint = e.status === 401 ? ' (pass --admin-token or set MERCHANT_KIT_ADMIN_TOKEN)' : '';
  return new ExitError(hasErrorBody(e) ? `Reset refused: ${e.code}: ${e.message} (request ${e.requestId})${hint}` : `Reset refused: HTTP ${e.status}${hint}`);
}
