import type { Command } from 'commander';
import type { CertificateView } from '../../../../contract/certificates.js';
import { emit, note, printSummary, printTable } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';

function printCertificates(list: readonly CertificateView[]): void {
  printTable(list, [
    { header: 'ID', value: (c) => c.id },
    { header: 'INTEGRATION', value: (c) => c.integration_id },
    { header: 'SYSTEM', value: (c) => c.system },
    { header: 'ENV', value: (c) => c.environment },
    { header: 'ISSUED', value: (c) => c.issued_at },
    { header: 'REVOKED', value: (c) => c.revoked_at },
  ], 'No certificates issued yet.');
}

/** `emulator certificates list`: GET /_emulator/certificates. */
export async function certificatesListAction(options: { limit?: number }, command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, await withControl(target, (control) => control.certificates(options.limit)), printCertificates);
}

/** `emulator certificates revoke <id>`: POST /_emulator/certificates/{id}/revoke. */
export async function certificatesRevokeAction(id: string, command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, await withControl(target, (control) => control.revokeCertificate(id)), (c) => {
    printSummary([['Certificate', c.id], ['Integration', c.integration_id], ['Revoked', c.revoked_at]]);
    note(`Verification now says "revoked" wherever it reads ${target.admin}/certificates/revoked.`);
  });
}

/** `emulator certificates rotate-key`: POST /_emulator/certificates/rotate-key. */
export async function certificatesRotateAction(command: Command): Promise<void> {
  const target = await controlTarget(command);
  emit(target.json, await withControl(target, (control) => control.rotateCertificateKey()), (k) => {
    printSummary([['New key', k.kid], ['Created', k.created_at], ['Retired', k.retired.join(', ') || undefined]]);
    note(`The retired keys stay in ${target.admin}/certificates/keys: what they signed stays verifiable.`);
  });
}
