import type { Command } from 'commander';
import { emit, printLine } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';
import { plural } from '../../../../text/plural.js';

/** `emulator faults clear`: DELETE /_emulator/faults. */
export async function faultsClearAction(command: Command): Promise<void> {
  const target = await controlTarget(command);
  const data = await withControl(target, (control) => control.clearFaults());
  emit(target.json, data, ({ cleared }) => printLine(cleared === 0 ? 'No faults were armed.' : `Cleared ${plural(cleared, 'fault')}.`));
}
