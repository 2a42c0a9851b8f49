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
 * The signing secret, never from the command line if avoidable (it would show in `ps`): the
 * environment variable first, then one line of stdin, and only then the discouraged flag; null
 * when none was given.
 */
export async function findSecret(sources: SecretSources, input: NodeJS.ReadableStream = process.stdin): Promise<string | null> {
  const env = sources.env?.trim();
  if (env) return checked(env);
  if (sources.stdin) {
    const line = (await readLine(input)).trim();
    if (line) return checked(line);
    throw new ExitError('error: --secret-stdin got no secret: stdin was empty.', 2);
  }
  const flag = sources.flag?.trim();
  return flag ? checked(flag) : null;
}

/** spec: Webhook configuration — signing secrets carry the `whsec_` prefix; anything else is a mistake (e.g. "undefined"). */
function checked(secret: string): string {
  if (/^whsec_[A-Za-z0-9_-]+$/.test(secret)) return secret;
  throw new ExitError('error: the signing secret is not of the form whsec_…: check MERCHANT_KIT_WEBHOOK_SECRET, --secret-stdin or --secret.', 2);
}
