import type { Command } from 'commander';
import type { FaultView } from '../../../../../emulator/faults.js';
import { emit, printTable, type Column } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';

const COLUMNS: Column<FaultView>[] = [
  { header: 'METHOD', value: (f) => f.method ?? 'any' },
  { header: 'PATH', value: (f) => f.path },
  { header: 'STATUS', value: (f) => f.status ?? 'runs' },
  { header: 'CODE', value: (f) => f.code },
  { header: 'RETRY-AFTER', value: (f) => f.retry_after, align: 'right' },
  { header: 'DELAY-MS', value: (f) => f.delay_ms, align: 'right' },
  { header: 'TIMES-LEFT', value: (f) => f.times, align: 'right' },
];

export function printFaults(faults: FaultView[]): void {
  printTable(faults, COLUMNS, 'No faults armed.');
}

/** `emulator faults [list]`: GET /_emulator/faults. */
export async function faultsListAction(command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, (await withControl(target, (control) => control.faults())) as FaultView[], printFaults);
}
