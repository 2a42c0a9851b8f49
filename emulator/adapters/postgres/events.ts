import type { EventType } from '../../../src/contract/events.js';
import type { EventBytes, EventRecord, EventsRepository } from '../../orders/repository.js';
import { statement, tableIn, type Conn, type Statement } from './conn.js';
import type { IntegrationRecord } from '../../stores/repository.js';
import type { WebhookRecord } from '../../webhooks/repository.js';
import { INTEGRATION_COLUMNS, integrationOf } from './stores.js';
import { WEBHOOK_COLUMNS, webhookOf } from './webhooks.js';

/**
 * The events table. A feed position must never become visible after a higher one (a reader paging
 * with `seq > cursor` would skip it for good), and a plain sequence hands numbers out in the order
 * transactions ask, not the order they commit. So a position is the next value of a one-row counter
 * (the `sequences` row named `events`) taken with an UPDATE that keeps the row locked until the
 * transaction ends: a second transaction that emits waits there until the first has committed (or
 * rolled back, when the counter goes back and no gap is left), then takes the next number. PostgreSQL
 * makes a commit visible before it releases the transaction's locks, so whenever position n+1 can be
 * seen, n already can. Emitting transactions of one environment thus commit one after the other from
 * their first event on; they are short (no network inside a transaction), and the rest of their work
 * runs in parallel.
 *
 * An event's time is the time it takes its position (spec: the feed is in strict creation order): a
 * transaction takes the counter's lock (`hold`) before it reads the clock for its first event, so one
 * that waited behind another's events is stamped after them (issue 24).
 */
export function eventsSql(schema: string) {
  const t = tableIn(schema);
  return {
    insert: statement(
      `WITH position AS (
         INSERT INTO ${t('sequences')} AS s (name, seq) VALUES ('events', 1)
         ON CONFLICT (name) DO UPDATE SET seq = s.seq + 1 RETURNING seq
       )
       INSERT INTO ${t('events')} (seq, id, type, store_id, integration_id, created_at, data)
       SELECT seq, $1, $2, $3, $4, $5, $6 FROM position RETURNING seq`,
    ),
    // Takes the counter's lock without moving it (the row is made at 0 when there is none yet), and
    // reads the integrations an event goes to (the store's, in IntegrationsRepository.byStore's
    // order; or the one named by $2), each with its webhook (what the outbox reads of each: issue 25).
    // The counter's value comes in every row (one row with no integration when there is none).
    holdFor: statement(
      `WITH h AS (
         INSERT INTO ${t('sequences')} AS s (name, seq) VALUES ('events', 0)
         ON CONFLICT (name) DO UPDATE SET seq = s.seq RETURNING seq
       )
       SELECT h.seq AS held_seq, ${INTEGRATION_COLUMNS()}, ${WEBHOOK_COLUMNS()}
       FROM h LEFT JOIN (${t('integrations')} i LEFT JOIN ${t('webhooks')} w ON w.integration_id = i.id)
         ON CASE WHEN $2::text IS NULL THEN i.store_id = $1 ELSE i.id = $2 END
       ORDER BY i.created_at, i.id`,
    ),
    byId: statement(`SELECT seq, id, type, store_id AS "storeId", integration_id AS "integrationId", created_at AS "createdAt", data FROM ${t('events')} WHERE id = $1`),
    bySeq: statement(`SELECT seq, id, type, store_id AS "storeId", integration_id AS "integrationId", created_at AS "createdAt", data FROM ${t('events')} WHERE seq = $1`),
    feedPage: statement(
      `SELECT seq, id, type, store_id AS "storeId", integration_id AS "integrationId", created_at AS "createdAt", data
       FROM ${t('events')} WHERE integration_id = $1 AND seq > $2 AND created_at >= $3 AND type = ANY($4::text[])
       ORDER BY seq LIMIT $5`,
    ),
    // The cursor's event, the counter and the page in one statement (issue 25): the page starts after
    // the cursor when the cursor names the integration's event at its time within retention, else at
    // the start (feed.ts judges the cursor with the first row's `c_*` and `max_seq`).
    feedAfter: statement(
      `WITH ${feedParts(schema, { integrationId: '$1', cursorSeq: '$2', cursorCreatedAt: '$6', cutoff: '$3', types: '$4::text[]', limitPlusOne: '$5' })}
       SELECT h.c_integration, h.c_created, h.max_seq, p.* FROM h LEFT JOIN p ON true ORDER BY p.seq`,
    ),
    latest: statement(`SELECT MAX(seq) AS seq FROM ${t('events')} WHERE integration_id = $1 AND created_at >= $2`),
    maxSeq: statement(`SELECT seq FROM ${t('sequences')} WHERE name = 'events'`),
    purge: statement(`DELETE FROM ${t('events')} WHERE created_at < $1`),
  };
}

/** SQL expressions of a feed read's arguments (parameters, or columns of an admission's credential). */
export interface FeedParams {
  integrationId: string;
  /** The cursor's position and time (0 and 0 from the start: no event has position 0). */
  cursorSeq: string;
  cursorCreatedAt: string;
  cutoff: string;
  types: string;
  limitPlusOne: string;
}

/**
 * The CTEs `c` (the cursor's event), `h` (its integration and time, the counter, where the page
 * starts) and `p` (the page's events, `data` as the stored text).
 *
 * `p` reads where the page starts as a value (`(SELECT start FROM h)`), not by joining `h` (issue 25,
 * ninth step): joined, `e.seq > h.start` was a join filter, and the page's generic plan read the
 * events from the very first one (by position, or the integration's all) up to the cursor at every
 * request, a cost that grew with the feed. As a value it bounds the index scan itself.
 *
 * The start is also written as `(integration_id, seq) > (integration, start)` beside the equality (the
 * same rows): only `events_integration (integration_id, seq)` can bound that, so the plan reads the
 * integration's own events from the start on. Otherwise a generic plan, which guesses an integration
 * holds 1/n of the feed, walks the positions of every integration's events (a first page of a new
 * integration in a long feed of others read all of it).
 */
export function feedParts(schema: string, f: FeedParams): string {
  const t = tableIn(schema);
  return `c AS (SELECT integration_id, created_at FROM ${t('events')} WHERE seq = ${f.cursorSeq}::bigint),
       h AS (
         SELECT (SELECT integration_id FROM c) AS c_integration, (SELECT created_at FROM c) AS c_created,
           COALESCE((SELECT seq FROM ${t('sequences')} WHERE name = 'events'), 0) AS max_seq,
           CASE WHEN EXISTS (SELECT 1 FROM c WHERE c.integration_id = ${f.integrationId} AND c.created_at = ${f.cursorCreatedAt}::bigint
             AND c.created_at >= ${f.cutoff}) THEN ${f.cursorSeq}::bigint ELSE 0 END AS start
       ),
       p AS (
         SELECT e.seq, e.id, e.type, e.store_id AS "storeId", e.integration_id AS "integrationId", e.created_at AS "createdAt", e.data
         FROM ${t('events')} e WHERE e.integration_id = ${f.integrationId} AND (e.integration_id, e.seq) > (${f.integrationId}, (SELECT start FROM h))
           AND e.created_at >= ${f.cutoff}
           AND e.type = ANY(${f.types}) ORDER BY e.seq LIMIT ${f.limitPlusOne}
       )`;
}

/**
 * The integration's newest event within retention as `[seq, createdAt]` (no row: none), a scalar
 * subquery's text: a feed page from the start that is empty gives it as its `next_cursor`. The row
 * comparison holds the same rows as the equality (every position is below the largest bigint); it
 * keeps the plan on `events_integration`, as in `feedParts`, where a generic plan walked the whole
 * feed backwards by position at every poll of an integration that has no event yet.
 */
export function newestEvent(schema: string, integrationId: string, cutoff: string): string {
  return `SELECT json_build_array(e.seq, e.created_at) FROM ${tableIn(schema)('events')} e
    WHERE e.integration_id = ${integrationId} AND (e.integration_id, e.seq) < (${integrationId}, 9223372036854775807)
      AND e.created_at >= ${cutoff} ORDER BY e.seq DESC LIMIT 1`;
}

type EventRow = Omit<EventRecord, 'data'> & { data: string };

/** A row of feedAfter: the cursor's columns, then a page row (all null on a page with none). */
type FeedAfterRow = { c_integration: string | null; c_created: number | null; max_seq: number } & Omit<EventBytes, 'data' | 'seq'> & {
  seq: number | null;
  data: string;
};

const toRecord = (r: EventRow): EventRecord => ({ ...r, type: r.type as EventType, data: JSON.parse(r.data) });

/** An integration an event goes to, and its webhook (none: undefined). */
export interface EmitTarget {
  integration: IntegrationRecord;
  webhook: WebhookRecord | undefined;
}

/** What `holdFor` read with the counter's lock: the counter's value, and the event's targets. */
export interface Held {
  seq: number;
  targets: EmitTarget[];
}

export interface PgEventsRepository extends EventsRepository {
  /**
   * Takes the feed counter's lock until the transaction ends, with the integrations an event goes to
   * (the store's, or only `integrationId`), each with its webhook, and the counter's value.
   */
  holdFor(storeId: string, integrationId?: string): Promise<Held>;
}

export function pgEvents(conn: Conn, s: ReturnType<typeof eventsSql>): PgEventsRepository {
  return {
    async holdFor(storeId, integrationId) {
      const rows = await conn.rows<Record<string, unknown>>(s.holdFor, [storeId, integrationId ?? null]);
      return {
        seq: Number(rows[0]!.held_seq),
        targets: rows.filter((r) => r.i_id !== null).map((r) => ({ integration: integrationOf(r), webhook: webhookOf(r) })),
      };
    },
    async insert(e) {
      const [row] = await conn.rows<{ seq: number }>(s.insert, [e.id, e.type, e.storeId, e.integrationId, e.createdAt, JSON.stringify(e.data)]);
      return { ...e, seq: row!.seq };
    },
    byId: async (id) => (await conn.rows<EventRow>(s.byId, [id])).map(toRecord)[0],
    bySeq: async (seq) => (await conn.rows<EventRow>(s.bySeq, [seq])).map(toRecord)[0],
    async feedPage(a) {
      const rows = await conn.rows<Omit<EventBytes, 'data'> & { data: string | Buffer }>(s.feedPage, [a.integrationId, a.after, a.cutoff, a.types, a.limit]);
      // The stored text's UTF-8 bytes, copied into the response as they are.
      for (const row of rows) row.data = Buffer.from(row.data as string, 'utf8');
      return rows as EventBytes[];
    },
    async feedAfter(a) {
      const rows = await conn.rows<FeedAfterRow>(s.feedAfter, [a.integrationId, a.cursor.seq, a.cutoff, a.types, a.limit, a.cursor.createdAt]);
      const head = rows[0]!;
      const page: EventBytes[] = [];
      for (const { c_integration: _i, c_created: _c, max_seq: _m, ...row } of rows) {
        if (row.seq === null) continue;
        page.push({ ...row, data: Buffer.from(row.data as string, 'utf8') } as EventBytes);
      }
      return {
        cursorEvent: head.c_integration === null ? null : { integrationId: head.c_integration, createdAt: head.c_created! },
        maxSeq: head.max_seq,
        rows: page,
      };
    },
    latestSeq: async (integrationId, cutoff) => (await conn.rows<{ seq: number | null }>(s.latest, [integrationId, cutoff]))[0]?.seq ?? null,
    maxSeq: async () => (await conn.rows<{ seq: number }>(s.maxSeq))[0]?.seq ?? 0,
    purgeBefore: (cutoff) => conn.run(s.purge, [cutoff]),
  };
}

/** A delivery the outbox queued for an event of the same transaction (written with it). */
export interface PendingDelivery {
  delivery: { id: string; integrationId: string; eventId: string; eventType: string; body: string };
  at: number;
}

const int = (n: number): string => {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not an integer: ${n}`);
  return String(n);
};

/** A prepared statement and its values, sent on a transaction's connection. */
export interface Write {
  statement: Statement;
  values: unknown[];
}

/** Events and deliveries per statement at most: a few shapes, each prepared once per connection. */
const PER_WRITE = 8;

/**
 * The statements that write an emit's events (positions already taken under the counter's lock:
 * `lastSeq` is the last of them) and their deliveries, sent pipelined with the transaction's COMMIT
 * (or before its next statement), in the same socket write: the counter's lock is then held for no
 * turn of this process's event loop after the emit (issue 25). They are named statements with
 * parameters (issue 25, eighth step): a text with literal values was parsed and planned by the
 * server at every call; these are planned once per connection, and their values are sent as they
 * are (no escaping here, no literal to read there). Up to `PER_WRITE` events and deliveries go in
 * one statement (the first one also moves the counter); more take more statements, in order.
 */
export function emitWrites(schema: string, events: readonly EventRecord[], lastSeq: number, deliveries: readonly PendingDelivery[]): Write[] {
  if (events.length === 0) return [];
  const out: Write[] = [];
  for (let i = 0; i * PER_WRITE < Math.max(events.length, deliveries.length); i++) {
    const e = events.slice(i * PER_WRITE, (i + 1) * PER_WRITE);
    const d = deliveries.slice(i * PER_WRITE, (i + 1) * PER_WRITE);
    const values: unknown[] = i === 0 ? [int(lastSeq)] : [];
    for (const x of e) values.push(int(x.seq), x.id, x.type, x.storeId, x.integrationId, int(x.createdAt), JSON.stringify(x.data));
    for (const { delivery: x, at } of d) values.push(x.id, x.integrationId, x.eventId, x.eventType, x.body, int(at));
    out.push({ statement: writeStatement(schema, i === 0, e.length, d.length), values });
  }
  return out;
}

const writeStatements = new Map<string, Statement>();

/**
 * The statement of one shape: the counter moved to `$1` (`counter`), then `events` events of 7
 * parameters each, then `deliveries` deliveries of 6 each (their positions taken from the
 * deliveries' counter here, in the order given).
 */
function writeStatement(schema: string, counter: boolean, events: number, deliveries: number): Statement {
  const key = `${schema}\u0000${counter}\u0000${events}\u0000${deliveries}`;
  const known = writeStatements.get(key);
  if (known) return known;
  const t = tableIn(schema);
  let n = 0;
  const p = (cast: string) => `$${++n}::${cast}`;
  const ctes: string[] = [];
  if (counter) ctes.push(`sq AS (UPDATE ${t('sequences')} SET seq = ${p('bigint')} WHERE name = 'events')`);
  const rows = Array.from({ length: events }, () => `(${p('bigint')}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('bigint')}, ${p('text')})`);
  const insertEvents = `INSERT INTO ${t('events')} (seq, id, type, store_id, integration_id, created_at, data) VALUES ${rows.join(', ')}`;
  let main = insertEvents;
  if (deliveries > 0) {
    if (events > 0) ctes.push(`ev AS (${insertEvents})`);
    const tuples = Array.from({ length: deliveries }, (_, i) => `(${i + 1}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('bigint')})`);
    ctes.push(`position AS (INSERT INTO ${t('sequences')} AS s (name, seq) VALUES ('webhook_deliveries', ${deliveries})
         ON CONFLICT (name) DO UPDATE SET seq = s.seq + ${deliveries} RETURNING seq)`);
    main = `INSERT INTO ${t('webhook_deliveries')} (seq, id, integration_id, event_id, event_type, body, status, next_attempt_at, created_at, updated_at)
       SELECT position.seq - ${deliveries} + v.ord, v.id, v.integration_id, v.event_id, v.event_type, v.body, 'pending', v.at, v.at, v.at
       FROM position, (VALUES ${tuples.join(', ')}) AS v(ord, id, integration_id, event_id, event_type, body, at)`;
  }
  const made = statement(ctes.length > 0 ? `WITH ${ctes.join(', ')} ${main}` : main);
  writeStatements.set(key, made);
  return made;
}
