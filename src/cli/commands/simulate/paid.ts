import type { Command } from 'commander';
import { emit } from '../../output.js';
import { controlTarget, withControl } from '../emulator/control-call.js';
import { printOrder } from '../orders/show.js';

/** `simulate paid <order_id>`: PATCH /_emulator/orders/{order_id} `{payment_status: "paid"}`; `order.updated` follows. */
export async function simulatePaidAction(id: string, command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, await withControl(target, (control) => control.patchOrder(id, { payment_status: 'paid' })), printOrder);
}
