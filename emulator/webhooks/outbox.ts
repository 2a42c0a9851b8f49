import type { Tx } from '../store/port.js';
import type { EventRecord } from '../orders/repository.js';
import { eventEnvelope } from '../orders/event-envelope.js';
import { webhookReceives } from '../../src/contract/webhooks.js';

/**
 * The outbox: called by `tx.emit` for each event, in the transaction that writes it. When the
 * integration's webhook is active, not paused and receives that type under its current scopes
 * (`webhook.test` always), it writes the delivery rows in that same transaction (no event is lost
 * between the commit and the send). Returns how many rows it wrote; `copies` is one plus the extra
 * copies chaos asks for (same event, new delivery id).
 */
export async function enqueueDeliveries(tx: Tx, event: EventRecord, nextId: () => string, copies: () => number): Promise<number> {
  const webhook = await tx.webhooks.get(event.integrationId);
  if (!webhook || !webhook.active || webhook.paused) return 0;
  const integration = await tx.integrations.byId(event.integrationId);
  if (!integration) return 0;
  // spec: POST /webhook/test sends a `webhook.test` event: a manual test reaches the receiver
  // whatever the `events` list (it needs no scope), so it only waits on active and not paused.
  if (event.type !== 'webhook.test' && !webhookReceives(webhook.events, event.type, integration.scopes)) return 0;
  const body = JSON.stringify(eventEnvelope(event));
  const n = copies();
  for (let i = 0; i < n; i++) {
    await tx.webhooks.insertDelivery({ id: nextId(), integrationId: event.integrationId, eventId: event.id, eventType: event.type, body }, event.createdAt);
  }
  return n;
}
