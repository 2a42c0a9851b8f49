import type { EnvContext } from '../context.js';
import type { IntegrationRecord } from '../stores/repository.js';
import type { EventBytes } from './repository.js';
import { eventEnvelopeHead } from './event-envelope.js';
import { ApiError } from '../../src/contract/errors.js';
import { visibleEventTypes, type EventType } from '../../src/contract/events.js';
import { LIMITS } from '../../src/contract/limits.js';
import { decodeFeedCursor, encodeFeedCursor, type FeedPosition } from './cursors.js';
import { listEvents } from '../../src/contract/orders-endpoints.js';
import { sameFeedPage, type AdmitRead, type AdmittedFeedPage, type FeedPageQuery } from '../store/port.js';
import { prefetchQuery } from '../http/query.js';

export interface FeedQuery {
  after?: string;
  limit: number;
  types?: EventType[];
}

/** spec: Feed — events older than 30 days on the emulator's clock are gone. */
export function retentionCutoff(env: EnvContext): number {
  return env.clock.now() - LIMITS.eventRetentionMs;
}

/** Deletes events past retention. Reads never depend on it: they filter by the cutoff too. */
export async function purgeExpiredEvents(env: EnvContext): Promise<number> {
  return env.store.events.purgeBefore(retentionCutoff(env));
}

type Start = { seq: number; expired: boolean };

/**
 * Where to start reading: after the cursor's event, or from the oldest available with
 * `expired` when that event was removed (spec: GET /events). A cursor naming another
 * integration's event, or a position never handed out, is 400 `invalid_cursor`.
 */
async function startAfter(env: EnvContext, integrationId: string, after: string | undefined, cutoff: number): Promise<Start> {
  if (after === undefined) return { seq: 0, expired: false };
  const position = decodeFeedCursor(after);
  const event = await env.store.events.bySeq(position.seq);
  if (event) return afterEvent(event, position, integrationId, cutoff);
  return afterRemoved(position, await env.store.events.maxSeq(), env.clock.now());
}

/** The cursor's event still stored: it must be this integration's, at the cursor's time. */
function afterEvent(event: { integrationId: string; createdAt: number }, position: FeedPosition, integrationId: string, cutoff: number): Start {
  if (event.integrationId !== integrationId || event.createdAt !== position.createdAt) throw ApiError.of('invalid_cursor');
  return event.createdAt < cutoff ? { seq: 0, expired: true } : { seq: position.seq, expired: false };
}

/** The cursor's event gone: a position once handed out (not past the counter nor the clock) reads from the oldest. */
function afterRemoved(position: FeedPosition, maxSeq: number, now: number): Start {
  if (position.seq > maxSeq || position.createdAt > now) throw ApiError.of('invalid_cursor');
  return { seq: 0, expired: true };
}

/**
 * Where to start and the page from there: the cursor's check and the page in one read where the
 * adapter has it (issue 25), judged by the same rules as `startAfter`.
 */
async function startAndPage(
  env: EnvContext, integrationId: string, query: FeedQuery, cutoff: number, types: readonly string[], admitted: AdmittedFeedPage | undefined,
): Promise<{ start: Start; rows: EventBytes[] }> {
  if (admitted) {
    // Read with the request's admission (a server database): the same rules, at the time it read at.
    if (query.after === undefined) return { start: { seq: 0, expired: false }, rows: admitted.rows };
    const position = decodeFeedCursor(query.after);
    const start = admitted.cursorEvent
      ? afterEvent(admitted.cursorEvent, position, integrationId, cutoff)
      : afterRemoved(position, admitted.maxSeq, admitted.now);
    return { start, rows: admitted.rows };
  }
  const events = env.store.events;
  const limit = query.limit + 1;
  if (query.after === undefined || !events.feedAfter) {
    const start = await startAfter(env, integrationId, query.after, cutoff);
    return { start, rows: await events.feedPage({ integrationId, after: start.seq, cutoff, types, limit }) };
  }
  const position = decodeFeedCursor(query.after);
  const read = await events.feedAfter({ integrationId, cursor: position, cutoff, types, limit });
  // The adapter read the page after the cursor, or from the oldest when its event is gone or past retention.
  const start = read.cursorEvent ? afterEvent(read.cursorEvent, position, integrationId, cutoff) : afterRemoved(position, read.maxSeq, env.clock.now());
  return { start, rows: read.rows };
}

/**
 * spec: GET /events and DESIGN's feed decision: strict creation order, only the types the
 * integration's scopes allow; `next_cursor` is always the position to pass next time (the given
 * `after` on an empty page) and null only while the integration has no event at all. Answers
 * the response body as JSON bytes (see `feedBody`).
 */
export async function readFeed(env: EnvContext, integration: IntegrationRecord, query: FeedQuery, prefetch?: AdmittedFeedPage): Promise<Buffer> {
  // The page the request's admission read, when it read this page for this integration.
  const read = prefetch && prefetch.integrationId === integration.id && sameFeedPage(prefetch.query, feedPageQuery(query)) ? prefetch : undefined;
  const cutoff = read ? read.now - LIMITS.eventRetentionMs : retentionCutoff(env);
  const allowed = visibleEventTypes(integration.scopes).filter((t) => !query.types || query.types.includes(t));
  const { start, rows } = await startAndPage(env, integration.id, query, cutoff, allowed, read);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  let next: string | null;
  if (last) next = encodeFeedCursor({ seq: last.seq, createdAt: last.createdAt });
  else if (query.after !== undefined && !start.expired) next = query.after;
  else {
    // Nothing matched from the start: everything up to the newest event has been looked at (read
    // with the page by the admission, when it read the page).
    const event = read?.newest !== undefined ? read.newest : await newestEvent(env, integration.id, cutoff);
    next = event ? encodeFeedCursor({ seq: event.seq, createdAt: event.createdAt }) : null;
  }
  const tail = JSON.stringify({ next_cursor: next, has_more: rows.length > query.limit, cursor_expired: start.expired });
  return feedBody(page, tail);
}

/** The integration's newest event within retention, of any type (undefined: none). */
async function newestEvent(env: EnvContext, integrationId: string, cutoff: number): Promise<{ seq: number; createdAt: number } | undefined> {
  const newest = await env.store.events.latestSeq(integrationId, cutoff);
  return newest === null ? undefined : env.store.events.bySeq(newest);
}

/** The page's arguments but the caller's (a cursor that is not one throws 400 `invalid_cursor`). */
export function feedPageQuery(query: FeedQuery): FeedPageQuery {
  return { cursor: query.after === undefined ? null : decodeFeedCursor(query.after), limit: query.limit, types: query.types ?? null };
}

/**
 * GET /events's read made with the request's admission on a server database (route option
 * `prefetch`): from the query as it came; none when it is not valid (the route answers its error).
 */
export function feedPrefetch({ query }: { query: unknown }): AdmitRead | undefined {
  const parsed = prefetchQuery(listEvents.query!, query);
  if (!parsed) return undefined;
  try {
    return { kind: 'feed', page: feedPageQuery(parsed as FeedQuery) };
  } catch {
    return undefined;
  }
}

const OPEN = '{"data":[';

/**
 * `{"data":[envelope,…],` + the rest of `tail` (a JSON object's text) as UTF-8 bytes, written once
 * into one buffer: each event's stored data bytes are copied, not decoded, parsed or serialized again.
 * The same bytes as JSON.stringify of the envelopes (`eventEnvelope`) with the tail's members.
 */
export function feedBody(rows: readonly EventBytes[], tail: string): Buffer {
  const heads = rows.map(eventEnvelopeHead);
  const rest = `],${tail.slice(1)}`;
  let size = OPEN.length + Buffer.byteLength(rest) + Math.max(0, rows.length - 1);
  for (let i = 0; i < rows.length; i++) size += Buffer.byteLength(heads[i]) + rows[i].data.length + 1;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(OPEN, 0, 'latin1');
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) at = out.writeUInt8(0x2c, at); // ,
    at += out.write(heads[i], at);
    at += rows[i].data.copy(out, at);
    at = out.writeUInt8(0x7d, at); // }
  }
  at += out.write(rest, at);
  return at === size ? out : out.subarray(0, at);
}
