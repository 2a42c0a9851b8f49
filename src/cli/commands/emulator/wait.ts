import type { Command } from 'commander';
import { ExitError } from '../../errors.js';
import { printJson, printLine } from '../../output.js';
import { controlTarget, probeEmulator, type ControlTarget, type EmulatorAnswer } from './control-call.js';
import { formatDuration } from './duration.js';

const POLL_MS = 200;
/** One probe's own limit: a server that accepts the connection and never answers must not hold the wait past its end. */
const PROBE_TIMEOUT_MS = 2_000;

/** `emulator wait [--timeout]`: probes GET /_emulator/health every 200 ms until the emulator answers. */
export async function waitAction(options: { timeout: number }, command: Command): Promise<void> {
  const target = await controlTarget(command);
  const started = Date.now();
  const deadline = started + options.timeout * 1000;
  let last: EmulatorAnswer = 'nothing';
  for (;;) {
    last = await probeEmulator(target, Math.max(1, Math.min(PROBE_TIMEOUT_MS, deadline - Date.now())));
    if (last === 'emulator' || last === 'needs_token') return ready(target, Date.now() - started, last === 'needs_token');
    // The last probe goes at the deadline itself: the wait never gives up before its --timeout.
    const left = deadline - Date.now();
    if (left <= 0) break;
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, left)));
  }
  const why = last === 'not_emulator' ? 'something answers there, but not a merchant-kit emulator' : 'nothing answered';
  throw new ExitError(`error: no emulator at ${target.root} within ${formatDuration(options.timeout)} (${why}); start one with "merchant-kit emulator start --detach"`);
}

function ready(target: ControlTarget, waitedMs: number, needsToken: boolean): void {
  if (target.json) return printJson({ ready: true, url: target.root, waited_ms: waitedMs });
  printLine(`Emulator at ${target.root} is ready (after ${(waitedMs / 1000).toFixed(1)} s).`);
  if (needsToken) {
    const told = target.adminToken ? 'It refused the token given' : 'It asks for a token';
    printLine(`${told}: pass the admin token it was started with, or your store's token (--admin-token or MERCHANT_KIT_ADMIN_TOKEN), to use its control API.`);
  }
}
