import type { Command } from 'commander';
import { buildContext, checkTarget, parseBaseUrl, readStdinLine, type GlobalOptions } from '../../context.js';
import { ExitError, usageError } from '../../errors.js';
import { PROFILE_NAME } from '../../config/paths.js';
import { saveProfile, type ProfileInfo } from '../../config/profiles.js';
import { promptHidden } from '../../config/prompt.js';
import { emit, printLine } from '../../output.js';

/**
 * The credential: `--credential-stdin`, else a hidden prompt on a terminal, else
 * `MERCHANT_KIT_CREDENTIAL`, else one line of (piped) stdin. Never a plain flag.
 */
async function readCredential(fromStdin: boolean): Promise<{ credential: string; source: string }> {
  if (fromStdin) return { credential: await readStdinLine(), source: '--credential-stdin' };
  if (process.stdin.isTTY) return { credential: await promptHidden('Credential (svk_….svs_…): '), source: 'the prompt' };
  const env = process.env.MERCHANT_KIT_CREDENTIAL?.trim();
  if (env) return { credential: env, source: 'MERCHANT_KIT_CREDENTIAL' };
  return { credential: await readStdinLine(), source: 'stdin' };
}

/** Validates name, base URL and credential locally, checks the credential with GET /me, then stores it encrypted. */
export async function profileAddAction(name: string, command: Command): Promise<void> {
  const opts = command.optsWithGlobals() as GlobalOptions;
  if (!PROFILE_NAME.test(name)) throw usageError('error: a profile name is 1 to 64 of A-Z a-z 0-9 . _ - and starts with a letter or digit');
  const rawBase = opts.baseUrl ?? process.env.MERCHANT_KIT_BASE_URL;
  if (!rawBase) throw usageError('error: profile add needs --base-url URL (e.g. http://127.0.0.1:4010/sandbox/v1)');
  const baseUrl = parseBaseUrl(rawBase, opts.baseUrl ? '--base-url' : 'MERCHANT_KIT_BASE_URL');
  const { credential, source } = await readCredential(Boolean(opts.credentialStdin));
  if (!credential) throw usageError('error: no credential was given (type it at the prompt, or pipe it with --credential-stdin)');
  const environment = checkTarget(baseUrl, credential, source);
  const ctx = await buildContext({ baseUrl, credential, environment, json: Boolean(opts.json), verbose: Boolean(opts.verbose) });
  const me = await ctx.client().me();
  if (me.integration.environment !== environment) {
    throw new ExitError(`error: GET /me says this credential belongs to the ${me.integration.environment} environment, not ${environment}; profile not saved`, 1);
  }
  const info: ProfileInfo = {
    name,
    base_url: baseUrl,
    environment,
    store_id: me.store.id,
    store_name: me.store.name,
    integration_id: me.integration.id,
    key_id: me.integration.credential.key_id,
    created_at: new Date().toISOString(),
  };
  const { active } = saveProfile({ ...info, credential });
  emit(ctx.json, { ...info, active }, (p) =>
    printLine(`Profile "${p.name}" saved: ${p.environment}, store ${p.store_name} (${p.store_id}), key ${p.key_id}${p.active ? ' — active' : ''}.`),
  );
}
