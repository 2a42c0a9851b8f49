import { ExitError } from '../../errors.js';
import { controlHeaders, controlUrl } from './control-url.js';

export interface ResetOptions {
  baseUrl?: string;
  adminToken?: string;
  json?: boolean;
}

/** `merchant-kit emulator reset`: POST /_emulator/reset — back to the seeded state, same credentials. */
export async function resetAction(options: ResetOptions): Promise<void> {
  const url = `${controlUrl(options.baseUrl)}/reset`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: controlHeaders(options.adminToken), body: '{}' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new ExitError(`Cannot reach the emulator at ${url} (${cause}). Is it running? Use --base-url to point at it.`);
  }
  const body = (await res.json().catch(() => null)) as { data?: { clock?: { now?: string } }; error?: { code: string; message: string; request_id: string } } | null;
  if (!res.ok) {
    const e = body?.error;
    const hint = res.status === 401 ? ' (pass --admin-token or set MERCHANT_KIT_ADMIN_TOKEN)' : '';
    throw new ExitError(e ? `Reset refused: ${e.code}: ${e.message} (request ${e.request_id})${hint}` : `Reset refused: HTTP ${res.status}${hint}`);
  }
  if (options.json) process.stdout.write(`${JSON.stringify(body?.data ?? {})}\n`);
  else process.stdout.write(`Emulator reset to its seeded state; the demo credentials stay valid. Clock: ${body?.data?.clock?.now ?? 'unknown'}\n`);
}
