import type { Command } from 'commander';
import { emit, note, printLine, printSummary } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';

/** `emulator stores token <store_id> [--revoke]`: POST or DELETE /_emulator/stores/{store_id}/token. */
export async function storesTokenAction(storeId: string, options: { revoke?: boolean }, command: Command): Promise<void> {
  const target = await controlTarget(command);
  if (options.revoke) {
    const revoked = await withControl(target, (control) => control.revokeStoreToken(storeId));
    return emit(target.json, revoked, (r) => printLine(r.revoked ? `The store token of ${r.store_id} is stopped.` : `${r.store_id} had no store token.`));
  }
  const issued = await withControl(target, (control) => control.issueStoreToken(storeId));
  emit(target.json, issued, (t) => {
    printSummary([
      ['Store', `${t.store_id} (${t.environment})`],
      ['Store token', t.store_token],
    ]);
    note('Shown once: hand it to the integrator. The previous token no longer opens anything.');
  });
}
