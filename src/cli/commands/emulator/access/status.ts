import type { Command } from 'commander';
import type { AccessRequestStatusView } from '../../../../contract/access-requests.js';
import { readStdinLine } from '../../../context.js';
import { usageError } from '../../../errors.js';
import { emit, note, printSummary } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';

/** The claim secret: MERCHANT_KIT_CLAIM_SECRET, else the first line of stdin. Never a flag. */
async function claimSecret(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const secret = env.MERCHANT_KIT_CLAIM_SECRET?.trim() || (await readStdinLine(process.stdin, 'Claim secret (mkc_…): '));
  if (!secret) throw usageError('error: no claim secret: set MERCHANT_KIT_CLAIM_SECRET or pipe it on stdin (the mkc_… shown when you made the request)');
  return secret;
}

function printStatus(s: AccessRequestStatusView): void {
  printSummary([
    ['Request', s.id],
    ['Status', s.status],
    ['Reason', s.reason ?? undefined],
    ['Store', s.store_id ?? undefined],
    ['Integration', s.integration_id ?? undefined],
    ['Credential', s.credential ?? undefined],
    ['Store token', s.store_token ?? undefined],
  ]);
  if (s.credential) note('The credential and the store token are shown once: keep them now (the credential for your ERP; the store token for the CLI, the panel and homologate --observe).');
  else if (s.status === 'approved') note('Approved; the credential and store token were shown at the first read after approval and are not shown again.');
  else if (s.status === 'pending') note('Pending: the operator has not decided yet.');
}

/** `emulator access status <id>`: GET /_emulator/access-requests/{id} with the claim secret. */
export async function accessStatusAction(id: string, command: Command): Promise<void> {
  const target = await controlTarget(command);
  const secret = await claimSecret();
  emit(target.json, await withControl(target, (control) => control.accessRequestStatus(id, secret)), printStatus);
}
