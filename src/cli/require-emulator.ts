import type { EmulatorControl } from '../client/emulator-control.js';

// Work that depends on an emulator (homologate's automatic run) first asks GET /_emulator/health.
// An emulator that is down gives no answer at all: that is reported as the network failure it is
// ("could not reach … is the emulator running?", by main.ts), never as "not an emulator" or as
// "a real environment".

/**
 * Whether an emulator answers at the control API: true for an emulator, false for a server that
 * answers anything else (a real environment; a 401 too, as a real API may refuse any request without
 * a credential). Rejects with the client's network error when nothing answers at all.
 */
export async function detectEmulator(control: EmulatorControl): Promise<boolean> {
  try {
    return (await control.health())?.ok === true;
  } catch (error) {
    if ((error as { status?: unknown }).status === 0) throw error;
    return false;
  }
}
