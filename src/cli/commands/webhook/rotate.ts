import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit, errColors, printLine } from '../../output.js';

/** POST /webhook/rotate-secret: the new secret, shown once. */
export async function webhookRotateAction(command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().webhook.rotateSecret(), (r) => {
    printLine(`Signing secret: ${r.signing_secret}`);
    printLine(`The previous secret stays valid for ${r.previous_valid_hours} h.`);
    process.stderr.write(errColors().yellow('This secret is shown once: store it now.\n'));
  });
}
