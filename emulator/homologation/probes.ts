import { API_VERSION, LIMITS } from '../../src/contract/limits.js';
import { formatDate } from '../../src/contract/dates.js';
import type { EnvContext } from '../context.js';
import type { WebhookRecord } from '../webhooks/repository.js';
import { signingSecrets } from '../webhooks/config.js';
import { postWebhook, type Agents } from '../webhooks/sender.js';
import type { ProbeKind, ProbeRecord } from '../../src/contract/observation.js';
import { probeHeaders, type LocalProbe } from '../../checks/internal/probes.js';

export { reformatted, STALE_SECONDS, randomSecret } from '../../checks/internal/probes.js';

export interface ProbeDelivery extends LocalProbe {
  kind: ProbeKind;
}

/** A `webhook.test` envelope: safe for any receiver to act on (it carries no order). */
export function testEventBody(env: EnvContext, storeId: string, integrationId: string, eventId: string): string {
  return JSON.stringify({
    id: eventId,
    type: 'webhook.test',
    api_version: API_VERSION,
    created_at: formatDate(env.clock.now()),
    store_id: storeId,
    integration_id: integrationId,
    data: { probe: 'homologation', note: 'Señal de prueba / probe' },
  });
}

/**
 * Sends one probe the way the dispatcher sends a delivery: the same sender function, keep-alive
 * agents and outbound address rules (the environment's guard), signed at the real time of sending.
 */
export async function sendProbe(
  env: EnvContext,
  agents: Agents,
  webhook: WebhookRecord,
  probe: ProbeDelivery,
  signal: AbortSignal,
  timeoutMs: number = LIMITS.webhookTimeoutMs,
): Promise<ProbeRecord> {
  const sentAt = Date.now();
  const headers = () => probeHeaders(probe, env.ids.next('delivery'));
  const result = await postWebhook(agents, webhook.url, headers, probe.body, timeoutMs, signal, env.outbound);
  return { kind: probe.kind, event_id: probe.eventId, sent_at: sentAt, status: result.responseStatus, error: result.error, duration_ms: result.durationMs };
}

/** The webhook's current secrets (what a valid probe is signed with). */
export function validSecrets(env: EnvContext, webhook: WebhookRecord): string[] {
  return signingSecrets(webhook, env.clock.now());
}
