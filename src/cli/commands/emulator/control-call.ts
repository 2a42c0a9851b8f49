import type { Command } from 'commander';
import type { EmulatorControl } from '../../../client/emulator-control.js';
import type { GlobalOptions } from '../../context.js';
import { ExitError } from '../../errors.js';
import { controlUrl, networkCause, openControl } from './control-url.js';

/** Where an emulator-only command sends its control calls. */
export interface ControlTarget {
  /** The emulator's root (`http://127.0.0.1:4010`). */
  root: string;
  /** Its control API (`http://127.0.0.1:4010/_emulator`). */
  admin: string;
  adminToken?: string;
  json: boolean;
}

/**
 * DESIGN: emulator-only commands find the control API from the base URL in use, with the precedence
 * of every command (`--base-url`, `--profile`, `MERCHANT_KIT_BASE_URL`, `MERCHANT_KIT_PROFILE` or the
 * active profile), else the default emulator address. The token is the command's `--admin-token`, else
 * `MERCHANT_KIT_ADMIN_TOKEN`: the admin's or a store's (`mks_…`). No credential is needed.
 */
export async function controlTarget(command: Command, env: NodeJS.ProcessEnv = process.env): Promise<ControlTarget> {
  const opts = command.optsWithGlobals() as GlobalOptions;
  // The precedence of resolveContext: an explicit --profile is a flag and beats the environment.
  const base = opts.baseUrl ?? (opts.profile ? await profileBaseUrl(opts.profile, env) : env.MERCHANT_KIT_BASE_URL || (await profileBaseUrl(undefined, env)));
  const admin = controlUrl(base);
  return { root: admin.slice(0, -'/_emulator'.length), admin, adminToken: opts.adminToken ?? env.MERCHANT_KIT_ADMIN_TOKEN, json: Boolean(opts.json) };
}

/** The base URL of the named profile, else of `MERCHANT_KIT_PROFILE` or the active one; undefined when there is none. */
async function profileBaseUrl(named: string | undefined, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const { activeProfileName, loadProfile } = await import('../../config/profiles.js');
  const name = named ?? env.MERCHANT_KIT_PROFILE ?? activeProfileName(env);
  return name ? loadProfile(name, env).base_url : undefined;
}

/**
 * Runs `work` with a control client of the target and turns what is not the API's own refusal into
 * one line: no answer ("is it running?"), a missing or wrong admin token, a server that is not an
 * emulator. Any other API error (422 with its fields, 404 of an unknown order, 409 of a refused
 * move) goes on to main.ts, which shows the API's message, code and request id (exit 1).
 */
export async function withControl<T>(target: ControlTarget, work: (control: EmulatorControl) => Promise<T>): Promise<T> {
  const { ApiError } = await import('../../../client/errors.js');
  const control = await openControl(target.admin, target.adminToken);
  try {
    return await work(control);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 0) {
      throw new ExitError(noEmulatorLine(target.root, networkCause(error)));
    }
    if (error.status === 401) {
      throw new ExitError(`error: the emulator at ${target.root} refused the control call (401 ${error.code}); ${TOKEN_ADVICE}`);
    }
    if (error.status === 403 && error.code === 'insufficient_scope') throw new ExitError(storeTokenRefusal(target));
    if (error.status === 404 && (await control.probe()) === 'not_emulator') {
      throw new ExitError(`error: ${target.root} is not a merchant-kit emulator (no control API at ${target.admin}); this command works only against an emulator`);
    }
    throw error;
  } finally {
    await control.close();
  }
}

/** The line for a target where nothing answered (`cause`: the socket's error, when known). */
export function noEmulatorLine(where: string, cause?: string): string {
  return `error: no emulator answered at ${where}${cause ? ` (${cause})` : ''}; is it running? Start one with "merchant-kit emulator start", or point --base-url at it`;
}

/** What to do when the control API refused the token, or got none. */
export const TOKEN_ADVICE = "pass --admin-token or set MERCHANT_KIT_ADMIN_TOKEN (its admin token, or your store's token)";

/**
 * A store token on a route of the whole sandbox (reset, the clock's moves, faults, chaos, export,
 * making stores): the one wording of every command that meets it (emulator.md, Admin and store tokens).
 */
export function storeTokenRefusal(target: Pick<ControlTarget, 'root'>): string {
  return `error: the emulator at ${target.root} refused the control call (403 insufficient_scope): a store token opens only its own store's routes; this one changes or shows the whole sandbox and needs the admin token`;
}

/** What answers at the target: an emulator, one behind an admin token (401: it answered), something else, or nothing. */
export type EmulatorAnswer = 'emulator' | 'needs_token' | 'not_emulator' | 'nothing';

/** One GET /_emulator/health within `timeoutMs`. */
export async function probeEmulator(target: ControlTarget, timeoutMs: number): Promise<EmulatorAnswer> {
  const { EmulatorControl } = await import('../../../client/emulator-control.js');
  const control = new EmulatorControl(target.root, { adminToken: target.adminToken, timeoutMs });
  try {
    const answer = await control.probe();
    return answer === 'unreachable' ? 'nothing' : answer;
  } finally {
    await control.close();
  }
}
