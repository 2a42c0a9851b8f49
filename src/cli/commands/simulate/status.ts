import type { Command } from 'commander';
import type { EmulatorControl } from '../../../client/emulator-control.js';
import { emit } from '../../output.js';
import { controlTarget, withControl } from '../emulator/control-call.js';
import { printOrder } from '../orders/show.js';
import type { SimulateStatusOptions } from './index.js';

/**
 * `simulate status <order_id> <status>` (and `simulate cancel`, the customer's): POST
 * /_emulator/orders/{order_id}/status. The API applies the state machine and the status authority;
 * its refusal (409 with details.current_status, 403, 422) is the command's error.
 */
export async function simulateStatusAction(id: string, status: string, options: SimulateStatusOptions, command: Command): Promise<void> {
  const target = await controlTarget(command);
  const body = {
    status,
    by: options.by,
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    ...(options.minutes === undefined ? {} : { estimated_minutes: options.minutes }),
  } as Parameters<EmulatorControl['setOrderStatus']>[1];
  emit(target.json, await withControl(target, (control) => control.setOrderStatus(id, body)), printOrder);
}
