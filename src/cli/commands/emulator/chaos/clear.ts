import type { Command } from 'commander';
import { emit } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';
import { printChaos } from './show.js';

/** `emulator chaos clear`: DELETE /_emulator/webhooks/chaos; prints the setting now in force (none). */
export async function chaosClearAction(command: Command): Promise<void> {
  const target = await controlTarget(command);
  const chaos = await withControl(target, (control) => control.clearChaos());
  emit(target.json, chaos, (c) => (c ? printChaos(c) : undefined));
}
