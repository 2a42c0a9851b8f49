import { randomBytes } from 'node:crypto';
import { signatureHeader } from '../../src/webhooks/sign.js';

/** How stale the stale probe is: well past the spec's 300 s tolerance. */
export const STALE_SECONDS = 900;

/** A fresh signing secret: the receiver's own (local runs) or one it does not know (the unknown-secret probe). */
export const randomSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/**
 * The same JSON value in unusual but legal formatting: keys in reverse order, spacing and line breaks,
 * every non-ASCII character and the slash as `\uXXXX`/`\/` escapes. A receiver that verifies
 * `JSON.stringify(JSON.parse(raw))` instead of the raw bytes refuses it.
 */
export function reformatted(body: string): string {
  const value = JSON.parse(body) as Record<string, unknown>;
  const keys = Object.keys(value).reverse();
  const parts = keys.map((k) => `  ${JSON.stringify(k)} :  ${escapeAll(JSON.stringify(value[k], null, 1))}`);
  return `{\n${parts.join(',\n')}\n}\n`;
}

function escapeAll(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/\//g, '\\/');
}

export interface LocalProbe {
  eventId: string;
  eventType: string;
  body: string;
  secrets: string[];
  skewSeconds: number;
  corrupt: boolean;
}

/** The headers of a delivery as the service sends them, signed now (plus a skew) with the given secrets. */
export function probeHeaders(p: LocalProbe, deliveryId: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000) + p.skewSeconds);
  let signature = signatureHeader(p.secrets, timestamp, p.body);
  if (p.corrupt) signature = signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
  return {
    'content-type': 'application/json',
    'user-agent': 'Service-Webhooks/1.0',
    'x-service-event-id': p.eventId,
    'x-service-event-type': p.eventType,
    'x-service-delivery-id': deliveryId,
    'x-service-timestamp': timestamp,
    'x-service-signature': signature,
  };
}

/**
 * Posts a probe to the reference receiver of this run (a local webhook endpoint, not the API): the
 * status it answered, or null when it did not answer.
 */
export async function postLocalProbe(url: string, p: LocalProbe): Promise<number | null> {
  // undici loads with the first probe sent: the emulator imports this file for its headers and
  // starts without it (bench/cli-start.mjs).
  const { request } = await import('undici');
  try {
    const res = await request(url, { method: 'POST', headers: probeHeaders(p, `dlv_probe${randomBytes(8).toString('hex')}`), body: p.body, headersTimeout: 5000, bodyTimeout: 5000 });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return null;
  }
}
