import type { Command } from 'commander';
import type { EmulatorControl } from '../../../../client/emulator-control.js';
import type { FaultView } from '../../../../../emulator/faults.js';
import { emit, printLine } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';
import type { FaultAddOptions } from './index.js';
import { plural } from '../../../../text/plural.js';


/** `GET /sandbox/v1/orders → 503 maintenance (Retry-After 5), next 2 calls` */
export function describeFault(f: FaultView): string {
  const answer = f.status === null ? 'runs normally' : `${f.status} ${f.code}${f.retry_after === null ? '' : ` (Retry-After ${f.retry_after})`}`;
  const delay = f.delay_ms > 0 ? ` after ${f.delay_ms} ms` : '';
  return `${f.method ?? 'any method'} ${f.path} → ${answer}${delay}, next ${plural(f.times, 'call')}`;
}

/** `emulator faults add`: POST /_emulator/faults; the API checks the fault (422 with a detail per field). */
export async function faultsAddAction(options: FaultAddOptions, command: Command): Promise<void> {
  const target = await controlTarget(command);
  const body = {
    path: options.path,
    ...(options.method === undefined ? {} : { method: options.method }),
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.code === undefined ? {} : { code: options.code }),
    ...(options.retryAfter === undefined ? {} : { retry_after: options.retryAfter }),
    ...(options.delayMs === undefined ? {} : { delay_ms: options.delayMs }),
    ...(options.times === undefined ? {} : { times: options.times }),
  } as Parameters<EmulatorControl['addFault']>[0];
  const fault = (await withControl(target, (control) => control.addFault(body))) as unknown as FaultView;
  emit(target.json, fault, (f) => printLine(`Fault armed: ${describeFault(f)}`));
}
