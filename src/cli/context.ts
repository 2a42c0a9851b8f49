import type { Command } from 'commander';
import { isLoopbackHost } from '../contract/hosts.js';
import type { EmulatorControl, MerchantClient, RetryInfo } from '../client/index.js';
import { rememberTarget, usageError } from './errors.js';
import { baseUrlFor, environmentOfPath } from '../contract/base-paths.js';
import { CREDENTIAL_PATTERN, activeProfileName, loadProfile } from './config/profiles.js';
import { onCleanup } from './cleanup.js';
import { redactSecrets } from '../logging/redact.js';

// Resolving the target of a command (DESIGN: CLI surface): flags, then MERCHANT_KIT_* variables,
// then the active profile. Imported only inside actions (it loads the HTTP client), never by a
// command group's index.ts, so `--help` stays fast.

export type Environment = 'live' | 'test';

/** What every API command works with. The credential is never printed; keep it out of messages. */
export interface CliContext {
  baseUrl: string;
  credential: string;
  environment: Environment;
  /** The profile the base URL or credential came from, when one did. */
  profileName?: string;
  json: boolean;
  verbose: boolean;
  /** The emulator's control API, found from the base URL: `http://127.0.0.1:4010/_emulator`. */
  adminUrl: string;
  client(): MerchantClient;
  control(): EmulatorControl;
}

/** The global options every command sees through `optsWithGlobals()`. */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  json?: boolean;
  verbose?: boolean;
  credentialStdin?: boolean;
  adminToken?: string;
}

/** A base URL as typed: a valid absolute URL, `https://` except loopback hosts, no trailing slash. Usage error otherwise. */
export function parseBaseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw usageError(`error: the base URL from ${source} is not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw usageError(`error: the base URL from ${source} must use https:// (http:// is accepted only for localhost, 127.0.0.0/8 and [::1])`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw usageError(`error: the base URL from ${source} must not carry a query, fragment or user info`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The environment of a credential from its prefixes (`svk_test_….svs_test_…` → test). Usage error when malformed. */
export function credentialEnvironment(credential: string, source: string): Environment {
  const m = CREDENTIAL_PATTERN.exec(credential);
  if (!m || m[1] !== m[2]) {
    throw usageError(`error: the credential from ${source} is not of the form svk_test_….svs_test_… or svk_live_….svs_live_…`);
  }
  return m[1] as Environment;
}

/**
 * Refuses, before any call, a credential whose environment is not the base path's (`/v1` live,
 * `/sandbox/v1` test), with the URL the user probably meant. Paths of neither form are not judged.
 */
export function checkEnvironmentMatch(baseUrl: string, environment: Environment): void {
  const pathEnv = environmentOfPath(new URL(baseUrl).pathname);
  if (pathEnv === null || pathEnv === environment) return;
  const other = environment === 'test' ? 'a test credential' : 'a live credential';
  const path = pathEnv === 'test' ? 'the sandbox (test) base path' : 'the live base path';
  throw usageError(`error: ${other} cannot be used with ${path} ${baseUrl}; did you mean ${baseUrlFor(baseUrl, environment)}?`);
}

/**
 * The environment of a credential, checked against the base path and remembered for the error
 * hints of main.ts: what every way of naming a target (resolveContext, `profile add`) checks.
 */
export function checkTarget(baseUrl: string, credential: string, source: string): Environment {
  const environment = credentialEnvironment(credential, source);
  checkEnvironmentMatch(baseUrl, environment);
  rememberTarget({ baseUrl, environment });
  return environment;
}

/** The emulator's control API beside a base URL: `…/sandbox/v1` and `…/v1` both give `…/_emulator`. */
export function adminUrlFor(baseUrl: string): string {
  const live = baseUrlFor(baseUrl, 'live');
  return `${live.slice(0, -'/v1'.length)}/_emulator`;
}

/**
 * Reads one line of stdin (the rest is left unread); empty when stdin ends first. Used for
 * `--credential-stdin`: on a terminal (nothing piped) the line is read without echo, since a typed
 * credential would otherwise stay on the screen and in its scrollback.
 */
export async function readStdinLine(stdin: NodeJS.ReadableStream = process.stdin, prompt = 'Credential (svk_….svs_…): '): Promise<string> {
  if ((stdin as NodeJS.ReadStream).isTTY) {
    const { promptHidden } = await import('./config/prompt.js');
    return promptHidden(prompt, stdin as NodeJS.ReadStream);
  }
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: stdin, terminal: false });
  try {
    for await (const line of rl) return line.trim();
    return '';
  } finally {
    rl.close();
    (stdin as NodeJS.ReadStream).pause?.();
  }
}

interface Layer {
  baseUrl?: { value: string; source: string };
  credential?: { value: string; source: string };
}

/**
 * The target of a command. Precedence: flags (`--base-url`, `--credential-stdin`, and the profile
 * named by `--profile`), then `MERCHANT_KIT_BASE_URL` / `MERCHANT_KIT_CREDENTIAL`, then the profile
 * named by `MERCHANT_KIT_PROFILE` or the active one. Usage errors exit 2.
 *
 * @example
 * const ctx = await resolveContext(command);
 * const me = await ctx.client().me.get();
 */
export async function resolveContext(command: Command, env: NodeJS.ProcessEnv = process.env): Promise<CliContext> {
  const opts = command.optsWithGlobals() as GlobalOptions;
  const flags: Layer = {};
  if (opts.baseUrl) flags.baseUrl = { value: opts.baseUrl, source: '--base-url' };
  if (opts.credentialStdin) {
    const line = await readStdinLine();
    if (!line) throw usageError('error: --credential-stdin was given but stdin had no line');
    flags.credential = { value: line, source: '--credential-stdin' };
  }
  let profileName: string | undefined;
  const profileLayer: Layer = {};
  const named = opts.profile ?? env.MERCHANT_KIT_PROFILE;
  const chosen = named ?? (needsProfile(flags, env) ? activeProfileName(env) ?? undefined : undefined);
  if (chosen) {
    const p = loadProfile(chosen, env);
    profileName = chosen;
    profileLayer.baseUrl = { value: p.base_url, source: `profile "${chosen}"` };
    profileLayer.credential = { value: p.credential, source: `profile "${chosen}"` };
  }
  const envLayer: Layer = {};
  if (env.MERCHANT_KIT_BASE_URL) envLayer.baseUrl = { value: env.MERCHANT_KIT_BASE_URL, source: 'MERCHANT_KIT_BASE_URL' };
  if (env.MERCHANT_KIT_CREDENTIAL) envLayer.credential = { value: env.MERCHANT_KIT_CREDENTIAL.trim(), source: 'MERCHANT_KIT_CREDENTIAL' };
  // An explicit --profile is a flag and beats the environment; MERCHANT_KIT_PROFILE and the
  // active profile are the bottom layer.
  const layers = opts.profile ? [flags, profileLayer, envLayer] : [flags, envLayer, profileLayer];
  const base = layers.find((l) => l.baseUrl)?.baseUrl;
  const cred = layers.find((l) => l.credential)?.credential;
  if (!base) throw usageError('error: no base URL: pass --base-url, set MERCHANT_KIT_BASE_URL or add a profile (merchant-kit profile add)');
  if (!cred) throw usageError('error: no credential: set MERCHANT_KIT_CREDENTIAL, pipe it with --credential-stdin or add a profile (merchant-kit profile add)');
  const baseUrl = parseBaseUrl(base.value, base.source);
  const environment = checkTarget(baseUrl, cred.value, cred.source);
  const fromProfile = base.source.startsWith('profile') || cred.source.startsWith('profile');
  return buildContext({
    baseUrl,
    credential: cred.value,
    environment,
    profileName: fromProfile ? profileName : undefined,
    json: Boolean(opts.json),
    verbose: Boolean(opts.verbose),
    adminToken: opts.adminToken ?? env.MERCHANT_KIT_ADMIN_TOKEN,
  });
}

/** The active profile is read only when the flags and the environment leave something open. */
function needsProfile(flags: Layer, env: NodeJS.ProcessEnv): boolean {
  return !(flags.baseUrl || env.MERCHANT_KIT_BASE_URL) || !(flags.credential || env.MERCHANT_KIT_CREDENTIAL);
}

/** What a context is built from: the resolved target, without the clients made from it. */
type ContextParts = Omit<CliContext, 'adminUrl' | 'client' | 'control'> & { adminToken?: string };

/** A context for a known target (also used by `profile add`, which has no profile yet). */
export async function buildContext(parts: ContextParts): Promise<CliContext> {
  const clientModule = await import('../client/index.js');
  const adminUrl = adminUrlFor(parts.baseUrl);
  let client: MerchantClient | undefined;
  let control: EmulatorControl | undefined;
  const { credential, adminToken, ...shown } = parts;
  const ctx: CliContext = {
    ...shown,
    credential,
    adminUrl,
    client: () => (client ??= newClient(clientModule, parts.baseUrl, credential, parts.verbose)),
    control: () => (control ??= newControl(clientModule, adminUrl, adminToken)),
  };
  // The credential must not show up if someone logs or inspects the context.
  Object.defineProperty(ctx, 'credential', { enumerable: false, value: credential });
  return ctx;
}

type ClientModule = typeof import('../client/index.js');

/**
 * Test-only: `MERCHANT_KIT_RETRY_BASE_MS` shortens the client's backoff (first wait; the cap is 8×)
 * so that retry tests run in milliseconds. `Retry-After` is still honoured.
 */
export function backoffFromEnv(env: NodeJS.ProcessEnv = process.env): { baseMs: number; maxMs: number } | undefined {
  const n = Number(env.MERCHANT_KIT_RETRY_BASE_MS);
  return env.MERCHANT_KIT_RETRY_BASE_MS && Number.isFinite(n) && n >= 0 ? { baseMs: n, maxMs: n * 8 } : undefined;
}

/** A retry wait from which on a command without `--verbose` says, once, that it is waiting (not hung). */
const LONG_RETRY_WAIT_MS = 3000;

function newClient(m: ClientModule, baseUrl: string, credential: string, verbose: boolean): MerchantClient {
  const client = new m.MerchantClient({
    baseUrl,
    credential,
    userAgent: 'merchant-kit-cli',
    backoff: backoffFromEnv(process.env),
    onRetry: retryReporter(verbose),
  });
  onCleanup(() => client.close());
  return client;
}

/**
 * `--verbose`: every retry on stderr. Otherwise one note the first time a wait is long (a 429's
 * `Retry-After: 30`, the 8 s backoff of a 5xx storm), so that a command waiting for minutes is not
 * mistaken for a hang; short waits stay silent and a final failure stays one line.
 */
export function retryReporter(verbose: boolean, write: (text: string) => void = (t) => process.stderr.write(t)): (info: RetryInfo) => void {
  let noted = false;
  return (info) => {
    if (verbose) return write(`${redactSecrets(`retrying: ${describeRetry(info)}`)}\n`);
    if (noted || info.delayMs < LONG_RETRY_WAIT_MS) return;
    noted = true;
    const answer = info.error.status === 0 ? `got no answer (${info.error.code})` : `answered ${info.error.status} ${info.error.code}`;
    const wait = Math.ceil(info.delayMs / 1000);
    write(`${redactSecrets(`note: ${info.method} ${info.path} ${answer}; waiting ${wait} s before retrying (--verbose shows every retry)`)}\n`);
  };
}

function describeRetry(info: RetryInfo): string {
  return `${info.method} ${info.path} failed (${info.error.status} ${info.error.code}); retry ${info.retry} in ${info.delayMs} ms`;
}

function newControl(m: ClientModule, adminUrl: string, adminToken: string | undefined): EmulatorControl {
  const control = new m.EmulatorControl(adminUrl.slice(0, -'/_emulator'.length), { adminToken });
  onCleanup(() => control.close());
  return control;
}
