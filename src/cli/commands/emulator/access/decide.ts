import type { Command } from 'commander';
import type { AccessRequestView } from '../../../../contract/access-requests.js';
import { emit, note, printSummary } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';

function printDecided(r: AccessRequestView): void {
  printSummary([
    ['Request', `${r.id} (${r.status})`],
    ['Company', r.company],
    ['Contact', r.contact_email],
    ['System', r.system],
    ['Store', r.store_id ?? undefined],
    ['Integration', r.integration_id ?? undefined],
    ['Reason', r.reason ?? undefined],
  ]);
}

/** `emulator access approve <id>`: POST /_emulator/access-requests/{id}/approve. */
export async function accessApproveAction(id: string, command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, await withControl(target, (control) => control.approveAccessRequest(id)), (r) => {
    printDecided(r);
    note(`Approved: the integrator takes the credential and store token with "merchant-kit emulator access status ${r.id}" and their claim secret (shown to them once, not to you).`);
  });
}

/** `emulator access deny <id> --reason R`: POST /_emulator/access-requests/{id}/deny. */
export async function accessDenyAction(id: string, reason: string, command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, await withControl(target, (control) => control.denyAccessRequest(id, reason)), printDecided);
}
