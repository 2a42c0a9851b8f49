import type { EnvContext } from '../context.js';

/** The webhook of an integration as the panel shows it (url, active, paused, paused_reason), or null. */
export function webhookView(_env: EnvContext, _integrationId: string): unknown {
  return null;
}
