import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit, printSummary } from '../../output.js';

/** GET /me, printed as a summary or as the API's `data`. */
export async function meAction(command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  const me = await ctx.client().me();
  emit(ctx.json, me, (m) =>
    printSummary([
      ['Store', `${m.store.name} (${m.store.id}, ${m.store.slug})`],
      ['Integration', `${m.integration.id} (${m.integration.system})`],
      ['Environment', m.integration.environment],
      ['Status', m.integration.status],
      ['Key id', m.integration.credential.key_id],
      ['Key expires', m.integration.credential.expires_at ?? undefined],
      ['Scopes', m.integration.scopes.join(', ')],
      ['Catalog mode', m.integration.settings.catalog_mode],
      ['Status authority', m.integration.settings.order_status_authority],
      ['Ack expected', m.integration.settings.ack_expected],
      ['API version', m.api_version],
    ]),
  );
}
