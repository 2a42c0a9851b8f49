import type { Command } from 'commander';
import type { EmulatorClock } from '../../../../client/emulator-control.js';
import { emit, printSummary } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';
import { formatDuration } from '../duration.js';

/** What the clock's mode means for someone reading it. */
export function clockMode(mode: string): string {
  return mode === 'manual' ? 'stands still until advanced (merchant-kit emulator clock advance 15m)' : 'follows the real time, plus what was advanced';
}

/** How far the clock was advanced: `1h30m (5400 s)`. */
export function clockOffset(seconds: number): string {
  return seconds === 0 ? 'none' : `${formatDuration(seconds)} (${seconds} s)`;
}

export function printClock(clock: EmulatorClock): void {
  printSummary([
    ['Now', clock.now],
    ['Mode', `${clock.mode}: ${clockMode(clock.mode)}`],
    ['Advanced', clockOffset(clock.offset_seconds)],
  ]);
}

/** `emulator clock [show]`: GET /_emulator/clock. */
export async function clockShowAction(command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, await withControl(target, (control) => control.clock()), printClock);
}
