import type { Command } from 'commander';
import { isLoopbackHost } from '../../../contract/hosts.js';
import { activeProfileName, loadProfile } from '../../config/profiles.js';
import { credentialEnvironment, readStdinLine, type Environment, type GlobalOptions } from '../../context.js';
import { ExitError, usageError } from '../../errors.js';
import { colors, note, printLine, printNdjson } from '../../output.js';
import type { ReplayCommandOptions } from './index.js';
import { readRecording } from './read.js';
import { replay, type ReplayResult } from './run.js';
import { environmentOfStore, otherStoreWarning, recordedStore } from './store.js';
import type { Exchange } from '../proxy/record.js';

/** Every credential the usual sources give, the first one per environment: stdin, environment, profile. */
async function gatherCredentials(command: Command, env: NodeJS.ProcessEnv): Promise<Partial<Record<Environment, string>>> {
  const opts = command.optsWithGlobals() as GlobalOptions;
  const found: [string, string][] = [];
  if (opts.credentialStdin) found.push([await readStdinLine(), '--credential-stdin']);
  if (env.MERCHANT_KIT_CREDENTIAL) found.push([env.MERCHANT_KIT_CREDENTIAL.trim(), 'MERCHANT_KIT_CREDENTIAL']);
  const profile = opts.profile ?? env.MERCHANT_KIT_PROFILE ?? (found.length === 0 ? activeProfileName(env) ?? undefined : undefined);
  if (profile) found.push([loadProfile(profile, env).credential, `profile "${profile}"`]);
  const out: Partial<Record<Environment, string>> = {};
  for (const [credential, source] of found) out[credentialEnvironment(credential, source)] ??= credential;
  return out;
}

function againstUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`error: --against is not a URL: ${raw}`);
  }
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)))) {
    throw usageError('error: --against must use https:// (http:// only to localhost, 127.0.0.0/8 or [::1])');
  }
  return url.origin;
}

/**
 * Replay sends recorded writes (acks, status changes, catalog batches): only to an emulator, never to
 * a real environment by mistake. The emulator is the one that answers GET /_emulator/health.
 */
async function assertEmulator(against: string): Promise<void> {
  const token = process.env.MERCHANT_KIT_ADMIN_TOKEN;
  let ok = false;
  try {
    const res = await fetch(`${against}/_emulator/health`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(5000),
    });
    const body = (await res.json().catch(() => null)) as { data?: { ok?: unknown } } | null;
    ok = res.status === 200 && body?.data?.ok === true;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new ExitError(`No emulator answered at ${against} (${cause}).`);
  }
  if (!ok) {
    throw usageError(`error: --against ${against} is not a merchant-kit emulator (GET /_emulator/health did not answer ok; behind an admin token, set MERCHANT_KIT_ADMIN_TOKEN): replay sends recorded writes only to an emulator`);
  }
}

/**
 * A warning on stderr when the credential is of another store than the recording's (store.ts). The
 * target's state is read from its control API (no API call, so nothing of the replay changes); an
 * emulator that will not show it (a store token of another store) is not judged.
 */
async function warnOfOtherStore(file: string, exchanges: Exchange[], against: string, credentials: Partial<Record<Environment, string>>): Promise<void> {
  const recorded = recordedStore(exchanges);
  if (!recorded) return;
  const { EmulatorControl } = await import('../../../client/emulator-control.js');
  const control = new EmulatorControl(against, { adminToken: process.env.MERCHANT_KIT_ADMIN_TOKEN, timeoutMs: 5000 });
  try {
    const state = await control.state().catch(() => null);
    if (!state) return;
    const environment = environmentOfStore(state, recorded);
    const credential = environment ? credentials[environment] : undefined;
    const warning = credential ? otherStoreWarning(file, recorded, credential, state) : null;
    if (warning) note(warning);
  } finally {
    await control.close();
  }
}

function show(r: ReplayResult, json: boolean | undefined): void {
  if (json) {
    printNdjson({ seq: r.seq, method: r.method, path: r.path, recorded_status: r.recordedStatus, status: r.status ?? null, same: !r.error && r.differences.length === 0, differences: r.differences, error: r.error ?? null });
    return;
  }
  const c = colors();
  const same = !r.error && r.differences.length === 0;
  const got = r.status === undefined ? '-' : String(r.status);
  printLine(`${same ? c.green('✓') : c.red('✖')} #${r.seq} ${r.method} ${r.path}  recorded ${r.recordedStatus}, got ${got}`);
  if (r.error) printLine(`    ${c.red(r.error)}`);
  for (const d of r.differences.slice(0, 20)) {
    printLine(`    ${c.yellow(d.path)}: recorded ${JSON.stringify(d.recorded)}, got ${JSON.stringify(d.actual)}`);
  }
  if (r.differences.length > 20) printLine(c.dim(`    … ${r.differences.length - 20} more differences`));
}

/** Replays a record file in order and exits 1 when any request answered differently. */
export async function replayAction(file: string, options: ReplayCommandOptions, command: Command): Promise<void> {
  const against = againstUrl(options.against);
  const exchanges = await readRecording(file);
  const credentials = await gatherCredentials(command, process.env);
  if (!credentials.test && !credentials.live) {
    throw usageError('error: no credential: set MERCHANT_KIT_CREDENTIAL, pipe it with --credential-stdin or use a profile');
  }
  await assertEmulator(against);
  await warnOfOtherStore(file, exchanges, against, credentials);
  const differing = await replay({ exchanges, against, credentials, onResult: (r) => show(r, options.json) });
  note(`${exchanges.length} request${exchanges.length === 1 ? '' : 's'} replayed, ${differing} differ${differing === 1 ? 's' : ''}.`);
  if (differing > 0) throw new ExitError(`The replay differs from the recording in ${differing} request${differing === 1 ? '' : 's'}.`, 1);
}
