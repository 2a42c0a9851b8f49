import type { Command } from 'commander';
import type { WebhookChaos } from '../../../../contract/webhooks.js';
import { emit } from '../../../output.js';
import { usageError } from '../../../errors.js';
import { controlTarget, withControl } from '../control-call.js';
import type { ChaosSetOptions } from './index.js';
import { printChaos } from './show.js';

/**
 * `emulator chaos set`: the settings given over the ones in force (POST replaces the whole setting,
 * so the current one is read first). The API checks the values (422 with a detail per field).
 */
export async function chaosSetAction(options: ChaosSetOptions, command: Command): Promise<void> {
  if (options.duplicateRate === undefined && options.reorder === undefined && options.delayMs === undefined) {
    throw usageError('error: give at least one of --duplicate-rate, --reorder (or --no-reorder) and --delay-ms; "emulator chaos clear" turns chaos off');
  }
  const target = await controlTarget(command);
  const chaos = await withControl(target, async (control) => {
    const current = (await control.request<WebhookChaos>('GET', '/webhooks/chaos')).data;
    return control.setChaos({
      duplicate_rate: options.duplicateRate ?? current.duplicate_rate,
      reorder: options.reorder ?? current.reorder,
      delay_ms: options.delayMs ?? current.delay_ms,
    });
  });
  emit(target.json, chaos, printChaos);
}
