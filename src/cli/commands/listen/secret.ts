import { createInterface } from 'node:readline';
import { ExitError } from '../../errors.js';

export interface SecretSources {
  env: string | undefined;
  stdin: boolean | undefined;
  flag: string | undefined;
}

/** The first line of stdin, without its line break; stdin is released afterwards so it does not keep the process alive. */
async function readLine(input: NodeJS.ReadableStream & { destroy?: () => void }): Promise<string> {
  const rl = createInterface({ input, terminal: false });
  try {
    for await (const line of rl) return line;
    return '';
  } finally {
    rl.close();
    input.destroy?.();
  }
}

export const MISSING_SECRET =
  'error: no webhook signing secret (whsec_…): set MERCHANT_KIT_WEBHOOK_SECRET or pipe it with --secret-stdin.';

/**
 * The signing secret, flags first as for every target setting (DESIGN: CLI surface, precedence):
 * one line of stdin with `--secret-stdin`, then the discouraged `--secret` (it shows in `ps`), then
 * `MERCHANT_KIT_WEBHOOK_SECRET`; null when none was given. A secret typed for this run must not
 * lose to an old one left in the environment (every delivery would fail verification).
 */
export async function findSecret(sources: SecretSources, input: NodeJS.ReadableStream = process.stdin): Promise<string | null> {
  if (sources.stdin) {
    const line = (await readLine(input)).trim();
    if (line) return checked(line);
    throw new ExitError('error: --secret-stdin got no secret: stdin was empty.', 2);
  }
  const flag = sources.flag?.trim();
  if (flag) return checked(flag);
  const env = sources.env?.trim();
  return env ? checked(env) : null;
}

/** spec: Webhook configuration — signing secrets carry the `whsec_` prefix; anything else is a mistake (e.g. "undefined"). */
function checked(secret: string): string {
  if (/^whsec_[A-Za-z0-9_-]+$/.test(secret)) return secret;
  throw new ExitError('error: the signing secret is not of the form whsec_…: check MERCHANT_KIT_WEBHOOK_SECRET, --secret-stdin or --secret.', 2);
}
