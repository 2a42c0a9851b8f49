import type { Command } from 'commander';
import { emit } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';
import { printClock } from './show.js';

/** `emulator clock advance <duration>`: POST /_emulator/clock/advance; prints the clock after the move. */
export async function clockAdvanceAction(seconds: number, command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, await withControl(target, (control) => control.advanceClock(seconds)), printClock);
}
