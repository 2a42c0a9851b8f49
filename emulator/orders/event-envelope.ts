import { API_VERSION } from '../../src/contract/limits.js';
import { formatDate } from '../../src/contract/dates.js';
import type { EventBytes, EventRecord } from './repository.js';

/** spec: Events — the envelope every consumer (feed, webhook) sees. */
export function eventEnvelope(e: EventRecord) {
  return {
    id: e.id,
    type: e.type,
    api_version: API_VERSION,
    created_at: formatDate(e.createdAt),
    store_id: e.storeId,
    integration_id: e.integrationId,
    data: e.data,
  };
}

/**
 * The envelope's text up to its `data` value: `{"id":…,"integration_id":"…","data":`, for the feed
 * to write the stored `data` after it without parsing it (its hot path). Ids, version and date never
 * hold characters that JSON escapes; the type is quoted with JSON.stringify, the one free-form text.
 */
export function eventEnvelopeHead(r: Omit<EventBytes, 'data'>): string {
  return `{"id":"${r.id}","type":${JSON.stringify(r.type)},"api_version":"${API_VERSION}","created_at":"${formatDate(r.createdAt)}",` +
    `"store_id":"${r.storeId}","integration_id":"${r.integrationId}","data":`;
}
