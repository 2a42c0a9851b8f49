import type { Command } from 'commander';
import type { WebhookChaos } from '../../../../contract/webhooks.js';
import { emit, printSummary } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';

export function printChaos(chaos: WebhookChaos): void {
  printSummary([
    ['Duplicate rate', chaos.duplicate_rate === 0 ? '0 (each delivery sent once)' : `${chaos.duplicate_rate} (${Math.round(chaos.duplicate_rate * 100)} % sent twice)`],
    ['Reorder', chaos.reorder ? 'yes (deliveries due together go out in reverse order)' : 'no'],
    ['Delay', chaos.delay_ms === 0 ? 'none' : `${chaos.delay_ms} ms before each delivery`],
  ]);
}

/** `emulator chaos [show]`: GET /_emulator/webhooks/chaos. */
export async function chaosShowAction(command: Command): Promise<void> {
  const target = await controlTarget(command);
  const chaos = await withControl(target, async (control) => (await control.request<WebhookChaos>('GET', '/webhooks/chaos')).data);
  emit(target.json, chaos, printChaos);
}
