import { signatureHeader } from '../../../webhooks/sign.js';
import { MAX_EVENT_DEPTH, nestedDeeperThan } from '../listen/depth.js';

/**
 * spec: Events — "clients ignore events whose `data.changed_by.integration_id` is their own
 * integration". `ownId` comes from GET /me; without it (a listener with no credential) the
 * envelope's `integration_id`, which names the integration the event was made for, stands in.
 *
 * @example
 * isOwnChange({ integration_id: 'int_A', data: { changed_by: { integration_id: 'int_A' } } }, null) // → true
 */
export function isOwnChange(event: Record<string, unknown>, ownId: string | null): boolean {
  const data = event.data as { changed_by?: { integration_id?: unknown } } | undefined;
  const by = data?.changed_by?.integration_id;
  if (typeof by !== 'string') return false;
  const own = ownId ?? (typeof event.integration_id === 'string' ? event.integration_id : null);
  return by === own;
}

/** The headers an app gets with an event read from the feed: those of a delivery that a feed can give. */
export function feedForwardHeaders(event: { id: string; type: string }): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'merchant-kit',
    'x-service-event-id': event.id,
    'x-service-event-type': event.type,
    'x-merchant-kit-source': 'feed',
  };
}

/** The headers an app gets with an order read by a reconciliation after `cursor_expired` (not an API event). */
export function reconciledForwardHeaders(): Record<string, string> {
  return { 'content-type': 'application/json', 'user-agent': 'merchant-kit', 'x-merchant-kit-source': 'reconciliation' };
}

/** `headers` signed now with `secret`, when there is one, so the app verifies what is forwarded like a webhook. */
export function signedNow(headers: Record<string, string>, secret: string | null, body: string): Record<string, string> {
  if (!secret) return headers;
  const timestamp = String(Math.floor(Date.now() / 1000));
  return { ...headers, 'x-service-timestamp': timestamp, 'x-service-signature': signatureHeader([secret], timestamp, body) };
}

/**
 * The event as JSON text, or null when it nests deeper than MAX_EVENT_DEPTH (the API never sends
 * such an event; a printer or the app's parser could not take it).
 */
export function eventJson(event: unknown): string | null {
  let text: string;
  try {
    text = JSON.stringify(event);
  } catch {
    return null; // RangeError: too deep for the stack
  }
  return nestedDeeperThan(text, MAX_EVENT_DEPTH) ? null : text;
}
