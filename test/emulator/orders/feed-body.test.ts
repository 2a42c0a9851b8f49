import { describe, expect, it } from 'vitest';
import { eventEnvelope } from '../../../emulator/orders/event-envelope.js';
import type { EventBytes } from '../../../emulator/orders/repository.js';
import type { EventType } from '../../../src/contract/events.js';
import { feedBody } from '../../../emulator/orders/feed.js';

/** A stored event: its `data` as the text the database keeps. */
interface StoredEvent extends Omit<EventBytes, 'data'> {
  data: string;
}

const row = (seq: number, data: string, type = 'order.created'): StoredEvent => ({
  seq,
  id: `evt_${seq}`,
  type,
  storeId: 'str_1',
  integrationId: 'int_1',
  createdAt: Date.UTC(2026, 10, 22, 12, 0, 0, seq),
  data,
});
const asBytes = (r: StoredEvent): EventBytes => ({ ...r, data: Buffer.from(r.data, 'utf8') });
const TAIL = JSON.stringify({ next_cursor: 'abc', has_more: true, cursor_expired: false });

// The envelope as the webhook and any consumer see it, serialized by JSON.stringify: nothing of the feed's own writer.
const envelopeOf = (r: StoredEvent) => eventEnvelope({ ...r, type: r.type as EventType, data: JSON.parse(r.data) });

describe('feedBody writes the same bytes as JSON.stringify of the envelopes', () => {
  const cases: [string, StoredEvent[], string][] = [
    ['an empty page', [], JSON.stringify({ next_cursor: null, has_more: false, cursor_expired: false })],
    ['one event', [row(1, '{"order":{"id":"ord_1"}}')], TAIL],
    ['several events', [row(1, '{"a":1}'), row(2, '{"b":[1,2]}'), row(3, '{}')], TAIL],
    ['non-ASCII stored data (two- and four-byte characters)', [row(7, '{"name":"Menú ñandutí 🍔"}'), row(8, '{"x":"é"}')], TAIL],
    ['a type JSON must escape', [row(9, '{}', 'odd"type\\ü')], TAIL],
    ['a non-ASCII cursor in the tail', [row(10, '{}')], JSON.stringify({ next_cursor: 'ñ', has_more: false, cursor_expired: true })],
  ];
  it.each(cases)('%s', (_name, rows, tail) => {
    const expected = JSON.stringify({ data: rows.map(envelopeOf), ...JSON.parse(tail) });
    const body = feedBody(rows.map(asBytes), tail);
    expect(body.toString('utf8')).toBe(expected);
    expect(body.length).toBe(Buffer.byteLength(expected));
    expect(() => JSON.parse(body.toString('utf8'))).not.toThrow();
  });
});
