import type { EventType } from '../../../src/contract/events.js';
import type { EventBytes, EventRecord, EventsRepository } from '../../orders/repository.js';
import { statement, tableIn, type Conn, type Statement } from './conn.js';
import type { IntegrationRecord } from '../../stores/repository.js';
import type { WebhookRecord } from '../../webhooks/repository.js';
import { INTEGRATION_COLUMNS, integrationOf } from './stores.js';
import { WEBHOOK_COLUMNS, webhookOf } from './webhooks.js';
import { formatDate } from '../../../src/contract/dates.js';

/**
 * The events table. A feed position must never become visible after a higher one (a reader paging
 * with `seq > cursor` would skip it for good), and a plain sequence hands numbers out in the order
 * transactions ask, not the order they commit. So a position is the next value of a one-row counter
 * (the `sequences` row named `events`) taken with an UPDATE that keeps the row locked until the
 * transaction ends: a second transaction that emits waits there until the first has committed (or
 * rolled back, when the counter goes back and no gap is left), then takes the next number. PostgreSQL
 * makes a commit visible before it releases the transaction's locks, so whenever position n+1 can be
 * seen, n already can. Emitting transactions of one environment thus commit one after the other from
 * their events' writes on; they are short (no network inside a transaction), and the rest of their work
 * runs in parallel.
 *
 * The lock is taken by the statements that write a transaction's events, sent with its COMMIT
 * (`emitWrites`): it lasts while the server runs them and commits, no round trip of this process.
 * An event's time is never before the time of the event before it in the feed (issue 24): those
 * statements, which see that event, complete it (`emitWrites`).
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
    // The integrations an event goes to (the store's, in IntegrationsRepository.byStore's order; or
    // the one named by $2), each with its webhook (what the outbox reads of each: issue 25), and their
    // stamp (`targetsStamp`), which the emit's writes check again once they hold the counter. No lock.
    targets: statement(targetsText(schema, '$1', '$2::text')),
    // The same for the store of the order $1 (read without a lock, before it: an order's store never
    // changes), sent with the order's lock (issue 25, eleventh step).
    targetsOfOrder: statement(targetsText(schema, `(SELECT o.store_id FROM ${t('orders')} o WHERE o.id = $1::text)`, 'NULL::text')),
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

/** The ends of an integration's range of `(integration_id, seq)` (see `feedParts`): the smallest and largest bigint. */
const MIN_SEQ = `'-9223372036854775808'::bigint`;
const MAX_SEQ = '9223372036854775807';

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
 * The integration and the start are written as a range of `(integration_id, seq)`, from `(integration,
 * start)` (excluded) to `(integration, the largest bigint)` (the same rows as the integration's events
 * after the start), ordered by `(integration_id, seq)` (one integration: by position), with no equality
 * on the integration: only `events_integration (integration_id, seq)` bounds that range and gives that
 * order, so the plan reads the integration's own events from the start on. An equality made the
 * integration a constant of the plan, and the order by position alone: a generic plan, which guesses
 * an integration holds 1/n of the feed, then walked the positions of every integration's events (a
 * first page of a new integration in a long feed of others read all of it); and on a feed that is one
 * integration's (n = 1: the bench's, a busy store's ERP), the admission's plan took the primary key's
 * order for its LIMIT and read the whole feed up to the cursor at every page (issue 25, eleventh
 * step: two thirds of PostgreSQL's buffer reads under the bench's mix).
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
         FROM ${t('events')} e WHERE (e.integration_id, e.seq) > (${f.integrationId}, (SELECT start FROM h))
           AND (e.integration_id, e.seq) <= (${f.integrationId}, ${MAX_SEQ})
           AND e.created_at >= ${f.cutoff}
           AND e.type = ANY(${f.types}) ORDER BY e.integration_id, e.seq LIMIT ${f.limitPlusOne}
       )`;
}

/**
 * The integration's newest event within retention as `[seq, createdAt]` (no row: none), a scalar
 * subquery's text: a feed page from the start that is empty gives it as its `next_cursor`. The
 * integration's events are a range of `(integration_id, seq)`, as in `feedParts`:
 * it keeps the plan on `events_integration`, where a generic plan walked the whole feed backwards by
 * position at every poll of an integration that has no event yet.
 */
export function newestEvent(schema: string, integrationId: string, cutoff: string): string {
  return `SELECT json_build_array(e.seq, e.created_at) FROM ${tableIn(schema)('events')} e
    WHERE (e.integration_id, e.seq) >= (${integrationId}, ${MIN_SEQ}) AND (e.integration_id, e.seq) <= (${integrationId}, ${MAX_SEQ})
      AND e.created_at >= ${cutoff} ORDER BY e.integration_id DESC, e.seq DESC LIMIT 1`;
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

/** What `targetsFor` read: the event's targets, and their stamp (`targetsStamp`) as read. */
export interface Targets {
  targets: EmitTarget[];
  stamp: string;
  /** Kept from an earlier unit of work (kept-targets.ts), not read in this one. */
  kept?: boolean;
}

/** The statement of an event's targets: the integrations of `store` (or only `integration`: not null) with their webhooks and stamp. */
function targetsText(schema: string, store: string, integration: string): string {
  const t = tableIn(schema);
  return `SELECT ${INTEGRATION_COLUMNS()}, ${WEBHOOK_COLUMNS()}, ${targetsStamp(schema, store, integration)} AS stamp
       FROM ${t('integrations')} i LEFT JOIN ${t('webhooks')} w ON w.integration_id = i.id
       WHERE CASE WHEN ${integration} IS NULL THEN i.store_id = ${store} ELSE i.id = ${integration} END
       ORDER BY i.created_at, i.id`;
}

export interface PgEventsRepository extends EventsRepository {
  /**
   * The integrations an event goes to (the store's, or only `integrationId`), each with its webhook,
   * and their stamp. Takes no lock: the emit's writes check the stamp once they hold the counter.
   */
  targetsFor(storeId: string, integrationId?: string): Promise<Targets>;
  /** `targetsFor` the store of the order `orderId` (no order: none, and the stamp of none). */
  targetsOfOrder(orderId: string): Promise<Targets>;
}

const targetsOf = (rows: Record<string, unknown>[]): Targets => ({
  targets: rows.map((r) => ({ integration: integrationOf(r), webhook: webhookOf(r) })),
  stamp: rows.length === 0 ? '' : String(rows[0]!.stamp),
});

export function pgEvents(conn: Conn, s: ReturnType<typeof eventsSql>): PgEventsRepository {
  return {
    targetsFor: async (storeId, integrationId) => targetsOf(await conn.rows<Record<string, unknown>>(s.targets, [storeId, integrationId ?? null])),
    targetsOfOrder: async (orderId) => targetsOf(await conn.rows<Record<string, unknown>>(s.targetsOfOrder, [orderId])),
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

/**
 * An event held back until its transaction's next statement or COMMIT. `floor`: the latest clock
 * reading of its transaction up to it (its time is never less, nor less than the event before it in
 * the feed). Its position and final time are set on `record` once written (`emitWrites`' answer).
 */
export interface PendingEvent {
  record: EventRecord;
  floor: number;
}

/** An emit's targets as it read them (`targetsFor`), checked again by its writes under the counter's lock. */
export interface TargetsCheck {
  storeId: string;
  integrationId: string | null;
  stamp: string;
}

const int = (n: number): string => {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not an integer: ${n}`);
  return String(n);
};

/** A prepared statement and its values, sent on a transaction's connection; `answer` reads its rows. */
export interface Write {
  statement: Statement;
  values: unknown[];
  answer?: (rows: Record<string, unknown>[]) => void;
}

/** Events per statement at most: a few shapes, each prepared once per connection. */
const PER_WRITE = 8;

/**
 * The statements that write a transaction's held-back events and their deliveries, sent pipelined
 * with its COMMIT (or before its next statement), in the same socket write (issue 25, tenth step).
 * The first takes the feed counter's lock and moves it past all of them: the lock is taken inside
 * the server and held only while it runs these statements and the COMMIT, never across a round
 * trip of this process or a turn of its event loop (it was held from the emit's own statement to
 * the COMMIT: 14–20 ms a call under 32 connections, every writer of the environment waiting).
 *
 * What the emit could not know before the lock is completed by the statements, each of which runs
 * with a snapshot taken after the lock was granted (a commit is visible before its locks are freed):
 * - positions: the counter's value less the events of this batch, plus each event's rank;
 * - times: an event carries the greater of its transaction's clock reading (`floor`) and the time of
 *   the event before it in the feed, so the feed's times never go back (issue 24; the clock was
 *   read after the lock before). A delivery's body, made by the outbox with the event's reading, has
 *   its `created_at` rewritten in the rare case that differs (`bodyAt`);
 * - targets: the integrations and webhooks the emit read without a lock are read again (their
 *   stamp); when one was added or changed in between, the statement fails as a serialization
 *   failure and the unit of work runs again (env-store.ts), so an integration's feed has every event
 *   of its store after its first one, as when the targets were read under the lock.
 * The positions and times come back as rows and are set on the records (what `emit` returned).
 * Named statements with parameters (issue 25, eighth step); up to `PER_WRITE` events, with their
 * deliveries, in one statement.
 */
export function emitWrites(
  schema: string, events: readonly PendingEvent[], deliveries: readonly PendingDelivery[], checks: readonly TargetsCheck[],
): Write[] {
  if (events.length === 0) return [];
  const out: Write[] = [{ statement: counterStatement(schema), values: [int(events.length)] }];
  const byId = new Map(events.map((e) => [e.record.id, e]));
  const answer = (rows: Record<string, unknown>[]) => {
    for (const row of rows) {
      const record = byId.get(row.id as string)!.record;
      record.seq = Number(row.seq);
      record.createdAt = Number(row.created_at);
    }
  };
  for (let from = 0; from < events.length; from += PER_WRITE) {
    const chunk = events.slice(from, from + PER_WRITE);
    const ids = new Set(chunk.map((e) => e.record.id));
    const d = deliveries.filter((x) => ids.has(x.delivery.eventId));
    const k = from === 0 ? checks : [];
    const values: unknown[] = [int(events.length)];
    chunk.forEach(({ record: x, floor }, i) => {
      values.push(int(from + i + 1), x.id, x.type, x.storeId, x.integrationId, int(floor), JSON.stringify(x.data));
    });
    for (const { delivery: x, at } of d) {
      const { pos, offsetMinutes, zone } = bodyAt(x.body, at);
      values.push(x.id, x.integrationId, x.eventId, x.eventType, x.body, int(at), int(byId.get(x.eventId)!.floor), int(pos), int(offsetMinutes), zone);
    }
    for (const c of k) values.push(c.storeId, c.integrationId, c.stamp);
    out.push({ statement: writeStatement(schema, chunk.length, d.length, k.length), values, answer });
  }
  return out;
}

/**
 * Where a delivery's body holds its event's `created_at` (the envelope's, before `data`: the first
 * one), 1-based, and the offset it was written with (`-03:00`: minutes and text). The statement
 * writes the event's final time there in the same form when it is not `at` (formatDate's, for that
 * offset: a time moved across a change of Asunción's offset keeps the offset of the clock's reading,
 * the same instant). A body without it (an outbox of the tests') has 0 and is written as it is.
 */
function bodyAt(body: string, at: number): { pos: number; offsetMinutes: number; zone: string } {
  const text = formatDate(at);
  const pos = body.indexOf(`"created_at":"${text}"`);
  const zone = text.slice(-6);
  if (pos < 0) return { pos: 0, offsetMinutes: 0, zone };
  const minutes = Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6));
  return { pos: pos + '"created_at":"'.length + 1, offsetMinutes: zone.startsWith('-') ? -minutes : minutes, zone };
}

/**
 * The stamp of an emit's targets: the integrations an event of `store` (or only `integration`) goes
 * to, with what decides their deliveries (scopes; the webhook's state and types), in `byStore`'s
 * order. A SQL expression (empty text: none).
 */
export function targetsStamp(schema: string, store: string, integration: string): string {
  const t = tableIn(schema);
  return `(SELECT COALESCE(string_agg(concat_ws('/', si.id, si.scopes, sw.active, sw.paused, sw.events), ',' ORDER BY si.created_at, si.id), '')
    FROM ${t('integrations')} si LEFT JOIN ${t('webhooks')} sw ON sw.integration_id = si.id
    WHERE CASE WHEN ${integration} IS NULL THEN si.store_id = ${store} ELSE si.id = ${integration} END)`;
}

const writeStatements = new Map<string, Statement>();

/** Takes the feed counter's lock (waiting for a transaction that holds it) and moves it by `$1` events. */
function counterStatement(schema: string): Statement {
  const key = `${schema}\u0000counter`;
  let made = writeStatements.get(key);
  if (!made) {
    made = statement(`INSERT INTO ${tableIn(schema)('sequences')} AS s (name, seq) VALUES ('events', $1::bigint)
       ON CONFLICT (name) DO UPDATE SET seq = s.seq + $1::bigint`);
    writeStatements.set(key, made);
  }
  return made;
}

/**
 * The statement of one shape: `$1` the events of the whole batch (the counter already moved past
 * them), then `events` events of 7 parameters each (rank in the batch, id, type, store, integration,
 * floor, data), `deliveries` deliveries of 10 each, `checks` target checks of 3 each. Answers the
 * events' positions and times.
 */
function writeStatement(schema: string, events: number, deliveries: number, checks: number): Statement {
  const key = `${schema}\u0000${events}\u0000${deliveries}\u0000${checks}`;
  const known = writeStatements.get(key);
  if (known) return known;
  const t = tableIn(schema);
  let n = 1;
  const p = (cast: string) => `$${++n}::${cast}`;
  const rows = Array.from({ length: events }, () => `(${p('bigint')}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('bigint')}, ${p('text')})`);
  const tuples = Array.from({ length: deliveries }, (_, i) =>
    `(${i + 1}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('text')}, ${p('bigint')}, ${p('bigint')}, ${p('int')}, ${p('int')}, ${p('text')})`);
  const targets = Array.from({ length: checks }, () => `(${p('text')}, ${p('text')}, ${p('text')})`);
  const ctes = [
    `c AS (SELECT seq - $1::bigint AS base FROM ${t('sequences')} WHERE name = 'events')`,
    `b AS (SELECT COALESCE((SELECT e.created_at FROM ${t('events')} e WHERE e.seq <= (SELECT base FROM c) ORDER BY e.seq DESC LIMIT 1), 0) AS at)`,
  ];
  // An emit's targets changed since it read them: 40001, and the unit of work runs again.
  const current = checks === 0 ? 'true' : `(SELECT bool_and(${t('targets_unchanged')}(k.stamp, ${targetsStamp(schema, 'k.store_id', 'k.integration_id')}))
       FROM (VALUES ${targets.join(', ')}) AS k(store_id, integration_id, stamp))`;
  ctes.push(`ev AS (INSERT INTO ${t('events')} (seq, id, type, store_id, integration_id, created_at, data)
       SELECT c.base + v.rank, v.id, v.type, v.store_id, v.integration_id, GREATEST(b.at, v.floor), v.data
       FROM c, b, (VALUES ${rows.join(', ')}) AS v(rank, id, type, store_id, integration_id, floor, data)
       WHERE ${current}
       RETURNING seq, id, created_at)`);
  if (deliveries > 0) {
    ctes.push(`position AS (INSERT INTO ${t('sequences')} AS s (name, seq) VALUES ('webhook_deliveries', ${deliveries})
         ON CONFLICT (name) DO UPDATE SET seq = s.seq + ${deliveries} RETURNING seq)`);
    // The body's created_at as formatDate writes it, at the offset of the clock's reading.
    const local = `to_char(timestamp '1970-01-01' + (x.t + v.off * 60000) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS') || v.zone`;
    ctes.push(`dl AS (INSERT INTO ${t('webhook_deliveries')} (seq, id, integration_id, event_id, event_type, body, status, next_attempt_at, created_at, updated_at)
       SELECT position.seq - ${deliveries} + v.ord, v.id, v.integration_id, v.event_id, v.event_type,
         CASE WHEN x.t = v.at OR v.pos = 0 THEN v.body ELSE overlay(v.body PLACING ${local} FROM v.pos FOR 23 + char_length(v.zone)) END,
         'pending', x.t, x.t, x.t
       FROM position, b, (VALUES ${tuples.join(', ')}) AS v(ord, id, integration_id, event_id, event_type, body, at, floor, pos, off, zone),
         LATERAL (SELECT GREATEST(b.at, v.floor) AS t) x)`);
  }
  const made = statement(`WITH ${ctes.join(', ')} SELECT seq, id, created_at FROM ev`);
  writeStatements.set(key, made);
  return made;
}
