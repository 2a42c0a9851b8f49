import type { EnvContext } from '../context.js';
import { eventEnvelope, type EventRecord } from '../data/events.js';
import { webhookReceives } from '../../src/contract/webhooks.js';

/**
 * The outbox: runs inside the transaction that writes an event and, when the integration's webhook
 * is active, not paused and receives that type under its current scopes (`webhook.test` always),
 * writes the delivery row in that same transaction (no event is lost between the commit and the
 * send). Returns how many rows it wrote; `duplicates` is how many extra copies chaos asks for (same event, new delivery id).
 */
export function enqueueDeliveries(env: EnvContext, event: EventRecord, duplicates: () => number): number {
  const webhook = env.webhooks.get(event.integrationId);
  if (!webhook || !webhook.active || webhook.paused) return 0;
  const integration = env.integrations.byId(event.integrationId);
  if (!integration) return 0;
  // spec: POST /webhook/test sends a `webhook.test` event: a manual test reaches the receiver
  // whatever the `events` list (it needs no scope), so it only waits on active and not paused.
  if (event.type !== 'webhook.test' && !webhookReceives(webhook.events, event.type, integration.scopes)) return 0;
  const body = JSON.stringify(eventEnvelope(event));
  const copies = 1 + duplicates();
  for (let i = 0; i < copies; i++) {
    env.webhooks.insertDelivery(
      { id: env.ids.next('delivery'), integrationId: event.integrationId, eventId: event.id, eventType: event.type, body },
      event.createdAt,
    );
  }
  return copies;
}
