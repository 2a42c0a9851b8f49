import type { EmulatorControl } from '../client/emulator-control.js';
import { ExitError } from './errors.js';

// Emulator-only work (simulate, homologate's automatic run) first asks GET /_emulator/health. An
// emulator that is down gives no answer at all: that is reported as the network failure it is
// ("could not reach … is the emulator running?", by main.ts), never as "not an emulator" or as
// "a real environment".

/**
 * Whether an emulator answers at the control API: true for an emulator, false for a server that
 * answers but is not one (a real environment). Rejects with the client's network error when
 * nothing answers, and with an ExitError when an emulator refuses the admin token.
 */
export async function detectEmulator(control: EmulatorControl, adminUrl: string): Promise<boolean> {
  try {
    return (await control.health())?.ok === true;
  } catch (error) {
    const { status } = error as { status?: unknown };
    if (status === 0) throw error;
    if (status === 401 || status === 403) {
      throw new ExitError(`error: the emulator's control API at ${adminUrl} refused access; pass --admin-token or set MERCHANT_KIT_ADMIN_TOKEN`, 1, { code: 'admin_token_required' });
    }
    return false;
  }
}

/** Refuses, with one line, a target that answers but is not an emulator; `what` names the command (`simulate`). */
export async function requireEmulator(control: EmulatorControl, target: { baseUrl: string; adminUrl: string }, what: string): Promise<void> {
  if (await detectEmulator(control, target.adminUrl)) return;
  throw new ExitError(`error: ${target.baseUrl} answers but is not a merchant-kit emulator (no control API at ${target.adminUrl}); ${what} works only against an emulator`, 1, {
    code: 'not_an_emulator',
  });
}
