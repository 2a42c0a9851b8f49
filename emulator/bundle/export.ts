import type { Emulator } from '../emulator.js';
import { formatDate } from '../../src/contract/dates.js';
import { ENVIRONMENTS } from '../../src/contract/store.js';
import { encodeBundle } from './envelope.js';
import type { BundlePayload } from './format.js';

export interface ExportedBundle {
  bytes: Buffer;
  sha256: string;
}

/** The whole state of a running emulator: both environments' storage and its clock. */
export async function exportBundle(emulator: Emulator): Promise<ExportedBundle> {
  const environments: BundlePayload['environments'] = {};
  for (const name of ENVIRONMENTS) environments[name] = await emulator.storage.admin.dump(name);
  return encodeState(environments, emulator.clock.now(), emulator.clock.mode, emulator.clock.offsetMs());
}

/** The bundle of `environments` with the clock at `now` (its mode and offset), made now. */
export function encodeState(environments: BundlePayload['environments'], now: number, mode: string, offsetMs: number): ExportedBundle {
  const clock = { now: formatDate(now), now_ms: now, mode, offset_seconds: Math.round(offsetMs / 1000) };
  return encodeBundle({ clock, environments }, formatDate(Date.now()));
}
