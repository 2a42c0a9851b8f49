import type { Environment } from '../../../src/contract/store.js';
import { fixedWindow } from '../../clock.js';
import type { Admission, AdmittedFeedPage, AdmittedProductPage, Admissions, AdmitRead, AdmitRequest } from '../../store/port.js';
import type { EventBytes } from '../../orders/repository.js';
import { EVENT_SCOPES, EVENT_TYPES } from '../../../src/contract/events.js';
import { LIMITS } from '../../../src/contract/limits.js';
import { WINDOW_LIMITS } from '../../store/coordination.js';
import { statement, tableIn, type Conn, type Statement } from './conn.js';
import { AUTH_RECORD_COLUMNS, authRecordsFrom, authRecordsOf } from './stores.js';
import type { AuthRecords } from '../../stores/repository.js';
import { orderRowBytes, orderStampColumn, orderWithHistoryOf } from './orders.js';
import type { HistoryRecord, OrderRecord } from '../../orders/repository.js';
import { productPageBody, type ProductPageRow } from './product-page.js';
import { feedParts, newestEvent } from './events.js';
import { HIT_ON_CONFLICT, othersTallied, type RequestTally } from './windows.js';
import type { SharedRow, SharedRowValues } from './sandbox.js';
import type { SchemaNames } from './schema.js';
import { deepFreeze, Kept } from './kept.js';

/**
 * An API request's admission in one statement (issue 25; the port's Admissions, store/port.ts): the shared row
 * (with the sandbox's time computed from its clock, so the windows and the expiry are judged at the
 * time every process shares), the IP's authentication failures, the credential's records, the
 * request hit (a data-modifying CTE, counted only when the request will be admitted: no fault
 * exists, the IP is not blocked, the digest of the presented secret is the stored one, the credential
 * is neither revoked nor expired) and the route's read: GET /orders/{id}'s order with its history (a
 * status call's: its status only), the
 * products page, the feed page (the pages for the credential's integration and store, the feed's types
 * those its scopes allow). Every answer is the database's as of this statement, so a write
 * acknowledged on any process is seen here: what is kept between requests (the credential's records,
 * the orders, the products pages) is checked in the statement, which sends them again whenever their
 * rows' stamp or the store's catalog version is not the kept one.
 */
export function pgAdmissions(conn: Conn, names: SchemaNames, shared: SharedRow, tally: RequestTally): Admissions {
  // Per environment, read and whether the request is counted by a hit (limits on) or tallied (off).
  const statements = Object.fromEntries(
    (Object.keys(names.env) as Environment[]).map((environment) => {
      const schema = names.env[environment];
      return [environment, Object.fromEntries(READS.map((read) => [read, {
        hit: admitStatement(names, schema, read, null), tally: admitStatement(names, schema, read, tally.ownKeySuffix),
      }]))];
    }),
  ) as Record<Environment, Record<ReadKind, Record<'hit' | 'tally', Statement>>>;
  // The records of recent keys (by environment and key id) with their stamp, handed out as they are
  // (the pipeline freezes them once): a request whose records did not change gets no record columns
  // back, nor parses any.
  const records = new Map<string, { stamp: string; records: AuthRecords }>();
  const keep = (key: string, stamp: string, found: AuthRecords): AuthRecords => {
    if (records.size >= 1000) records.clear();
    records.set(key, { stamp, records: found });
    return found;
  };
  const pages = keptPages();
  const orders = new Kept<KeptOrder>(MAX_KEPT_ORDERS, MAX_KEPT_ORDER_BYTES, (order) => order.bytes);
  return {
    async admit(request: AdmitRequest): Promise<Admission> {
      const read = request.read;
      const keyId = request.credential?.keyId ?? null;
      const key = `${request.environment}:${keyId}`;
      const kept = keyId === null ? undefined : records.get(key);
      // The products page kept for this integration and query, when this process knows the integration.
      const pageKey = read?.kind === 'products' && kept ? pageKeyOf(request.environment, kept.records.integration.id, read.page) : null;
      const keptPage = pageKey === null ? undefined : pages.get(pageKey);
      const orderKey = read?.kind === 'order' ? `${request.environment}:${read.orderId}` : null;
      const keptOrder = orderKey === null ? undefined : orders.get(orderKey);
      const [row] = await conn.rows<Row>(statements[request.environment][read?.kind ?? 'none'][request.limits ? 'hit' : 'tally'], [
        request.realNow, request.now, request.limits, request.ip, keyId, request.credential?.digest ?? null,
        WINDOW_LIMITS.auth_failures, kept?.stamp ?? null, ...(read ? readValues(read, keptPage?.version ?? null, keptOrder?.stamp ?? null) : []),
      ]);
      const r = row!;
      const state = shared.adopt(r);
      const limit = WINDOW_LIMITS.requests;
      // Limits off: the request is this process's to count (windows.ts, RequestTally), beside what the others counted.
      if (r.tallied !== null) r.hitCount = r.tallied + tally.add(r.k_integrationId!, fixedWindow(r.now).start, r.generation);
      const admission: Admission = {
        shared: state,
        blocked: r.blocked,
        records: r.k_keyId === null ? undefined : r.records === null ? kept!.records : keep(key, r.k_stamp!, authRecordsOf(recordsOf(r.records))),
        hit:
          r.hitCount === null
            ? null
            : { allowed: r.hitCount <= limit, remaining: Math.max(0, limit - r.hitCount), retryAfterSeconds: fixedWindow(r.now).retryAfterSeconds },
        order: orderKey === null ? undefined : orderOf(orders, orderKey, keptOrder, r as OrderRow),
      };
      if (read?.kind === 'products' && r.k_integrationId !== null) {
        const p = r as ProductsRow;
        if (p.p_page === null) {
          // Not sent: the store's catalog is at the version of the page kept (for this integration).
          if (keptPage && keptPage.integrationId === r.k_integrationId) admission.products = { integrationId: r.k_integrationId, query: read.page, body: keptPage.body };
        } else {
          admission.products = productsOf(p, read.page);
          pages.keep(pageKeyOf(request.environment, r.k_integrationId, read.page), { integrationId: r.k_integrationId, version: p.p_version, body: admission.products.body });
        }
      }
      if (read?.kind === 'feed' && r.k_integrationId !== null) admission.feed = feedOf(r, read.page);
      if (read?.kind === 'orderStatus') admission.orderStatus = { orderId: read.orderId, status: (r as StatusRow).o_status };
      return admission;
    },
  };
}

const READS = ['none', 'order', 'orderStatus', 'products', 'feed'] as const;
export type ReadKind = (typeof READS)[number];

interface Row extends SharedRowValues {
  now: number;
  blocked: boolean | null;
  /** The credential's key id, its integration and its records' stamp (null: no such credential). */
  k_keyId: string | null;
  k_integrationId: string | null;
  k_stamp: string | null;
  /**
   * The credential's records as one JSON object of `a`'s columns (`AUTH_RECORD_COLUMNS` and the stamp),
   * null when they are the ones kept (their stamp is the one sent). One column, not the 25 of a second
   * scan of `a` joined on the stamp (issue 25: the join's node and its wide rows were built at every
   * execution, for records sent only when they change).
   */
  records: (Record<string, unknown> & { c_secretSha256: string }) | null;
  /** The request's place in its integration's window (null: not counted), its own and the other processes' tallies included. */
  hitCount: number | null;
  /**
   * Limits off: the integration's count in the window without this process's tally (null: the request
   * is not counted, or the limits are on and `hitCount` has it).
   */
  tallied: number | null;
}

/**
 * The order's stamp (null: no such order) and the order with its history (its fields and `history`),
 * null when the stamp is the one sent (the kept order is current).
 */
type OrderRow = Row & { o_stamp: string | null; o_order: Record<string, unknown> | null };

/** The order's status (null: no such order). */
type StatusRow = Row & { o_status: string | null };

/** The order read: the kept one while its stamp holds, else the one sent (then kept), undefined when there is none. */
function orderOf(orders: Kept<KeptOrder>, key: string, kept: KeptOrder | undefined, r: OrderRow): Admission['order'] {
  if (r.o_stamp === null) {
    orders.drop(key);
    return undefined;
  }
  if (r.o_order === null) return kept!.found;
  const found = orderWithHistoryOf(r.o_order);
  orders.keep(key, { stamp: r.o_stamp, found: deepFreeze(found), bytes: orderRowBytes(r.o_order) });
  return found;
}

/** The record columns of `to_json(a)`: as the driver reads them, but the digest, which JSON gives as bytea's hex text (`\\x…`). */
function recordsOf(json: Record<string, unknown> & { c_secretSha256: string }): Record<string, unknown> {
  return { ...json, c_secretSha256: Buffer.from(json.c_secretSha256.slice(2), 'hex') };
}

/**
 * The orders GET /orders/{id} (and a status call's admission) read last, by environment and id, with
 * their stamp: an admission sends that stamp, and the statement sends the order and its history again
 * only when it moved. The same object is handed out while current, so what a route makes of it can be
 * kept with it (order-text.ts keeps the body's text). Bounded by count and bytes like the pages.
 */
interface KeptOrder {
  /** The order's stamp when it was read (`orderStampColumn`). */
  stamp: string;
  found: { order: OrderRecord; history: HistoryRecord[] };
  bytes: number;
}


const MAX_KEPT_ORDERS = 10_000;
const MAX_KEPT_ORDER_BYTES = 32 * 1024 * 1024;

/** The page (its products, option groups and options) is null when the store's catalog is at the version sent (the kept page is current). */
type ProductsRow = Row & { p_page: ProductPageRow | null; p_version: string };

/**
 * A feed page's event in the page's text (`f_rows`, the events one after the other): the length of its
 * data in characters, `:`, the data as stored, then its other columns as a JSON array and a newline.
 * The data is sent as it is (issue 25, eighth step): as a JSON string inside `json_agg` the server
 * escaped every quote of every event's data and the emulator parsed it back, for a text the response
 * copies as it is. Its length says where it ends, whatever it holds; the array, made by the server,
 * holds no raw newline (a JSON text's strings escape it, and `json_build_array` writes none between
 * values).
 */
export const FEED_ROW = `length(p.data) || ':' || p.data || json_build_array(p.seq, p.id, p.type, p."storeId", p."integrationId", p."createdAt")::text || chr(10)`;

/** The head of a feed row (`FEED_ROW`): seq, id, type, storeId, integrationId, createdAt. */
type FeedHead = [number, string, string, string, string, number];

/** A high surrogate: the first UTF-16 code unit of a character beyond the Basic Multilingual Plane. */
const HIGH_SURROGATES = /[\uD800-\uDBFF]/g;

/**
 * Where a data of `characters` characters (the server's count) starting at `start` ends in `text`: a
 * character beyond the Basic Multilingual Plane is two UTF-16 code units here, so the end moves one
 * unit further for each high surrogate within it. The regular expression looks for them (issue 25:
 * a loop over every code unit of every event's data was 1 % of the emulator's time under the mixed
 * bench, 15 times the cost of this on a page of orders).
 */
function dataEnd(text: string, start: number, characters: number): number {
  let end = start + characters;
  for (let from = start; ; ) {
    const pairs = text.slice(from, end).match(HIGH_SURROGATES)?.length ?? 0;
    if (pairs === 0) return end;
    from = end;
    end += pairs;
  }
}

/** The events of a page's text (`FEED_ROW`, one after the other; null: none). */
export function feedRowsOf(text: string | null): EventBytes[] {
  const rows: EventBytes[] = [];
  if (text === null) return rows;
  for (let at = 0; at < text.length; ) {
    const colon = text.indexOf(':', at);
    const characters = Number(text.slice(at, colon));
    if (colon < 0 || !Number.isSafeInteger(characters)) throw new Error('a feed page\'s text the admission did not write');
    const end = dataEnd(text, colon + 1, characters);
    const newline = text.indexOf('\n', end);
    if (newline < 0) throw new Error('a feed page\'s text the admission did not write');
    const [seq, id, type, storeId, integrationId, createdAt] = JSON.parse(text.slice(end, newline)) as FeedHead;
    rows.push({ seq, id, type: type as EventBytes['type'], storeId, integrationId, createdAt, data: Buffer.from(text.slice(colon + 1, end), 'utf8') });
    at = newline + 1;
  }
  return rows;
}

type FeedRow = Row & {
  f_c_integration: string | null; f_c_created: number | null; f_max_seq: number; f_rows: string | null;
  /** [seq, createdAt] of the newest event, [] when none, null when not read (see `AdmittedFeedPage.newest`). */
  f_newest: [number, number] | [] | null;
};

function productsOf(p: ProductsRow, query: AdmittedProductPage['query']): AdmittedProductPage {
  return { integrationId: p.k_integrationId!, query, body: productPageBody(p.p_page!, query.limit) };
}

const pageKeyOf = (environment: Environment, integrationId: string, q: AdmittedProductPage['query']) =>
  JSON.stringify([environment, integrationId, q.since, q.after, q.limit, q.categoryExternalId, q.active]);

interface KeptPage {
  integrationId: string;
  /** The store's catalog version the page was built at (a transaction id, as text: bigint). */
  version: string;
  body: Buffer;
}

/**
 * The products pages this process built last, by environment, integration and query, with the
 * store's catalog version each was built at: an admission sends that version, and the statement sends
 * the page again only when the catalog moved. Bounded by count and bytes (a page is at most a few
 * hundred kilobytes): past either, everything is dropped and read again.
 */
const keptPages = () => new Kept<KeptPage>(MAX_KEPT_PAGES, MAX_KEPT_BYTES, (page) => page.body.length);

const MAX_KEPT_PAGES = 500;
const MAX_KEPT_BYTES = 32 * 1024 * 1024;

function feedOf(r: Row, query: AdmittedFeedPage['query']): AdmittedFeedPage {
  const f = r as FeedRow;
  const rows = feedRowsOf(f.f_rows);
  const page: AdmittedFeedPage = {
    integrationId: r.k_integrationId!,
    query,
    now: r.now,
    cursorEvent: f.f_c_integration === null ? null : { integrationId: f.f_c_integration, createdAt: f.f_c_created! },
    maxSeq: f.f_max_seq,
    rows,
  };
  if (f.f_newest !== null) page.newest = f.f_newest.length === 0 ? null : { seq: f.f_newest[0], createdAt: f.f_newest[1] };
  return page;
}

// The feed's types and the scope each needs (null: none), in the order of EVENT_TYPES.
const SCOPE_OF_TYPE = EVENT_TYPES.map((t) => EVENT_SCOPES[t]);

/**
 * The read's parameters, from $9 on (see `readParts`); `version`: the kept products page's catalog
 * version; `stamp`: the kept order's stamp.
 */
function readValues(read: AdmitRead, version: string | null, stamp: string | null): unknown[] {
  switch (read.kind) {
    case 'order':
      return [read.orderId, stamp];
    case 'orderStatus':
      return [read.orderId];
    case 'products': {
      const q = read.page;
      return [q.since, q.after, q.limit + 1, q.categoryExternalId, q.active, version];
    }
    case 'feed': {
      const q = read.page;
      const asked = q.types;
      return [
        q.cursor?.seq ?? 0, q.cursor?.createdAt ?? 0, LIMITS.eventRetentionMs,
        asked ? EVENT_TYPES.filter((t) => asked.includes(t)) : EVENT_TYPES, asked ? SCOPE_OF_TYPE.filter((_, i) => asked.includes(EVENT_TYPES[i]!)) : SCOPE_OF_TYPE,
        q.limit + 1,
      ];
    }
  }
}

/** The read's CTEs (after the admission's own) and columns. */
function readParts(schema: string, read: ReadKind): { ctes: string; columns: string; from: string } {
  const env = tableIn(schema);
  switch (read) {
    case 'none':
      return { ctes: '', columns: '', from: '' };
    case 'order':
      // The order's stamp; its row and history (one JSON object, `order_read`: migration 13) only when
      // the stamp is not the kept one's ($10, null: none kept). The function's plan is started only
      // when it is called, not at every admission.
      return {
        ctes: `, ov AS (SELECT ${orderStampColumn(schema)} AS stamp FROM ${env('orders')} o WHERE o.id = $9::text)`,
        columns: `, ov.stamp AS o_stamp, CASE WHEN ov.stamp IS DISTINCT FROM $10::text THEN ${env('order_read')}($9::text) END AS o_order`,
        from: ' LEFT JOIN ov ON true',
      };
    case 'orderStatus':
      // Only the status (a status call's admission, for the homologation recorder): one index lookup,
      // not the order and its history that a status call moves every time (issue 25, fourteenth step).
      return { ctes: '', columns: `, (SELECT o.status FROM ${env('orders')} o WHERE o.id = $9::text) AS o_status`, from: '' };
    case 'products': {
      // The store's catalog version (0: no row, an empty catalog); the page only when it is not the one
      // of the page kept ($14, null: none kept), read by a function (migration 13): its plan is started
      // only when it is called, not at every admission. Both take the credential's store and
      // integration from the row of `a` (no scan of `a` of their own).
      return {
        ctes: '',
        columns: `, COALESCE(cv.version, 0)::text AS p_version,
          CASE WHEN COALESCE(cv.version, 0) IS DISTINCT FROM $14::bigint THEN ${env('product_page')}(a."s_id", a."i_id", $9::bigint, $10::text,
            $11::integer, $12::text, $13::boolean) END AS p_page`,
        from: ` LEFT JOIN ${env('catalog_versions')} cv ON cv.store_id = a."s_id"`,
      };
    }
    case 'feed': {
      // The types asked for ($12) that the integration's scopes allow: each type's scope ($13, null for none) among them.
      const types = `ARRAY(SELECT u.t FROM unnest($12::text[], $13::text[]) AS u(t, s) WHERE u.s IS NULL OR (SELECT "i_scopes" FROM a)::jsonb ? u.s)`;
      const ctes = feedParts(schema, {
        integrationId: '(SELECT "i_id" FROM a)', cursorSeq: '$9', cursorCreatedAt: '$10', cutoff: '((SELECT now FROM n) - $11::bigint)',
        types, limitPlusOne: '$14::integer',
      });
      return {
        ctes: `, ${ctes}`,
        // The newest event of any type within retention when the page from the start is empty (a
        // poll before the first event, or past an expired cursor): the page's next_cursor, in the
        // same snapshot and round trip.
        columns: `, h.c_integration AS f_c_integration, h.c_created AS f_c_created, h.max_seq AS f_max_seq,
          (SELECT string_agg(${FEED_ROW}, '' ORDER BY p.seq) FROM p) AS f_rows,
          CASE WHEN h.start = 0 AND NOT EXISTS (SELECT 1 FROM p) THEN COALESCE((${newestEvent(schema, '(SELECT "i_id" FROM a)', '(SELECT now FROM n) - $11::bigint')}),
            '[]'::json) END AS f_newest`,
        from: ' CROSS JOIN h',
      };
    }
  }
}

/**
 * What tells that a credential's records changed: the row versions of the credential, its integration
 * and its store (each UPDATE writes a new version, with its transaction's id and a new place; a reset
 * or a restore writes new rows). Equal stamps are the same rows as read before; a stamp that changed
 * without a change of what the records hold (a vacuum moving rows) only reads them again.
 */
const STAMP = `concat_ws(',', c.xmin, c.ctid, i.xmin, i.ctid, s.xmin, s.ctid)`;

/**
 * `ownTally` null: the request is counted by the hit (an upsert of the integration's window row, with
 * the limits on); else (limits off) the hit is only judged, and `tallied` is what the shared row and
 * the other processes' tallies hold (this process's own, `ownTally` ends its key, is counted in JS).
 */
export function admitStatement(names: SchemaNames, schema: string, read: ReadKind, ownTally: string | null): Statement {
  const sh = tableIn(names.shared);
  const parts = readParts(schema, read);
  const counted = `NOT n.faults AND n.blocked IS NOT TRUE AND a."c_secretSha256" = $6::bytea AND a."c_revokedAt" IS NULL
         AND (a."c_expiresAt" IS NULL OR a."c_expiresAt" > n.now)`;
  const others = othersTallied(sh, 'a."i_id"', 'n.window_start', ownTally);
  // Limits on: the hit, a data-modifying CTE. Limits off: what the shared row and the other processes'
  // tallies hold, a column of the final select (no CTE of its own, nor a join of `n` and `a` to scan
  // again: each is built and torn down at every execution of the generic plan, issue 25).
  const hit = ownTally === null
    ? `, hit AS (
       INSERT INTO ${sh('rate_windows')} AS w (kind, key, window_start, count)
       SELECT 'requests', a."i_id", n.window_start, 1 FROM n, a
       WHERE ${counted}
       ${HIT_ON_CONFLICT}
       RETURNING count
     )`
    : '';
  const tallied = `CASE WHEN ${counted} THEN COALESCE((SELECT w.count FROM ${sh('rate_windows')} w WHERE w.kind = 'requests' AND w.key = a."i_id" AND w.window_start = n.window_start), 0)
         + ${others} END`;
  // The IP's authentication failures, judged only with the limits on ($3). The statement of the
  // limits off reads none: its `CASE WHEN false` names $3, $4 and $7 for their types only, and the
  // planner folds it to null.
  const blocked = ownTally === null
    ? `CASE WHEN $3::boolean THEN COALESCE((SELECT w.count FROM ${sh('rate_windows')} w
           WHERE w.kind = 'auth_failures' AND w.key = $4::text AND w.window_start = st.now / 60000 * 60000), 0) >= $7::bigint END`
    : `CASE WHEN false THEN $3::boolean OR $4::text = '' OR $7::bigint = 0 END`;
  // $1 real time, $2 this process's time, $3 limits on, $4 IP, $5 key id, $6 secret digest, $7 auth-failure allowance,
  // $8 the stamp of the credential's records this process keeps (null: none); the read's from $9.
  return statement(
    `WITH st AS (
       SELECT generation, clock_mode AS "clockMode", clock_offset_ms AS "clockOffsetMs", clock_frozen_at AS "clockFrozenAt", chaos,
         EXISTS (SELECT 1 FROM ${sh('faults')}) AS faults, EXISTS (SELECT 1 FROM ${sh('armed_faults')}) AS armed,
         CASE WHEN clock_mode IS NULL THEN $2::bigint
              WHEN clock_mode = 'manual' THEN COALESCE(clock_frozen_at, $1::bigint) + COALESCE(clock_offset_ms, 0)
              ELSE $1::bigint + COALESCE(clock_offset_ms, 0) END AS now
       FROM ${sh('sandbox_state')}
     ), n AS (
       SELECT st.*, st.now / 60000 * 60000 AS window_start,
         ${blocked} AS blocked
       FROM st
     ), a AS (
       SELECT ${AUTH_RECORD_COLUMNS}, ${STAMP} AS stamp ${authRecordsFrom(schema)} WHERE c.key_id = $5::text
     )${hit}${parts.ctes}
     SELECT n.generation, n."clockMode", n."clockOffsetMs", n."clockFrozenAt", n.chaos, n.faults, n.armed, n.now, n.blocked,
       a."c_keyId" AS "k_keyId", a."i_id" AS "k_integrationId", a.stamp AS k_stamp,
       CASE WHEN a.stamp IS DISTINCT FROM $8::text THEN to_json(a) END AS records${parts.columns},
       -- Last: the hit locks the integration's window row until the statement ends, and every other
       -- request of the integration waits for it; a route's read evaluated after it (a products page:
       -- milliseconds) would hold them all that long. PostgreSQL evaluates the list in order. The other
       -- processes' tallies (limits off on them) count against the budget too.
       ${ownTally === null ? `${others} + (SELECT count FROM hit) AS "hitCount", NULL::bigint AS tallied` : `NULL::bigint AS "hitCount", ${tallied} AS tallied`}
     FROM n LEFT JOIN a ON true${parts.from}`,
  );
}
