import type { Command } from 'commander';
import type { AccessRequestStatus, AccessRequestView } from '../../../../contract/access-requests.js';
import { emit, printTable } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';

export function printRequests(requests: readonly AccessRequestView[]): void {
  printTable(requests, [
    { header: 'ID', value: (r) => r.id },
    { header: 'STATUS', value: (r) => r.status },
    { header: 'COMPANY', value: (r) => r.company },
    { header: 'CONTACT', value: (r) => r.contact_email },
    { header: 'SYSTEM', value: (r) => r.system },
    { header: 'STORE', value: (r) => r.store_id },
    { header: 'CREATED', value: (r) => r.created_at },
  ], 'No access requests.');
}

/** `emulator access list [--status S]`: GET /_emulator/access-requests. */
export async function accessListAction(options: { status?: AccessRequestStatus }, command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, await withControl(target, (control) => control.accessRequests({ status: options.status })), printRequests);
}
