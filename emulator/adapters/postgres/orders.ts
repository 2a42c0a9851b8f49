import type { Environment } from '../../../src/contract/store.js';
import type { HistoryRecord, OrderRecord, OrdersRepository } from '../../orders/repository.js';
import { statement, tableIn, type Conn } from './conn.js';
import { Kept } from './kept.js';

// The orders aggregate's tables: orders (items, customer, address and payment are JSON texts of the
// row: spec: Order rule 1, copies at purchase time) and their status history.

type OrderRow = Omit<OrderRecord, 'customer' | 'deliveryAddress' | 'payment' | 'items' | 'lastImportError'> & {
  customer: string;
  deliveryAddress: string | null;
  payment: string;
  items: string;
  lastImportError: string | null;
};

const toRecord = (r: OrderRow): OrderRecord => ({
  ...r,
  customer: JSON.parse(r.customer),
  deliveryAddress: r.deliveryAddress === null ? null : JSON.parse(r.deliveryAddress),
  payment: JSON.parse(r.payment),
  items: JSON.parse(r.items),
  lastImportError: r.lastImportError === null ? null : JSON.parse(r.lastImportError),
});

/** The columns in order, each with its record field and how it is written. */
const FIELDS: [column: string, field: keyof OrderRecord, json?: true][] = [
  ['id', 'id'], ['store_id', 'storeId'], ['number', 'number'], ['status', 'status'], ['status_reason', 'statusReason'],
  ['fulfillment_type', 'fulfillmentType'], ['estimated_minutes', 'estimatedMinutes'], ['created_at', 'createdAt'],
  ['updated_at', 'updatedAt'], ['scheduled_for', 'scheduledFor'], ['customer', 'customer', true],
  ['delivery_address', 'deliveryAddress', true], ['payment', 'payment', true], ['payment_status', 'paymentStatus'],
  ['items', 'items', true], ['notes', 'notes'], ['subtotal', 'subtotal'], ['delivery_fee', 'deliveryFee'], ['discount', 'discount'],
  ['total', 'total'], ['ack_status', 'ackStatus'], ['external_id', 'externalId'], ['external_number', 'externalNumber'],
  ['acknowledged_at', 'acknowledgedAt'], ['ack_integration_id', 'ackIntegrationId'], ['last_import_error', 'lastImportError', true],
  ['accepted_at', 'acceptedAt'],
];

const ORDER = FIELDS.map(([column, field]) => (column === field ? column : `${column} AS "${field}"`)).join(', ');

/**
 * The columns of an order `o` and its history as a JSON array under `history`: one statement, one
 * snapshot (issue 25: GET /orders/{id}). An admission reads the same through `order_read` (migration
 * 13), which answers the same, field for field (test/emulator/adapters/postgres/admission-reads.test.ts).
 */
export function orderWithHistoryColumns(schema: string): string {
  return `${ORDER}, (SELECT COALESCE(json_agg(json_build_object('status', h.status, 'at', h.at, 'by', h.by,
    'integrationId', h.integration_id, 'reason', h.reason) ORDER BY h.seq), '[]'::json)
    FROM ${tableIn(schema)('order_status_history')} h WHERE h.order_id = o.id) AS history`;
}

/**
 * What tells that an order `o` or its history changed (null: no such order): the order row's version
 * (each UPDATE writes a new one, with its transaction's id and a new place; a reset or a restore
 * writes new rows, in a transaction of their own) and the history's last position (an entry written
 * without the order's row). Equal stamps are the same rows as read before; a stamp that changed with
 * nothing else (a vacuum moving the row) only reads the order again.
 */
export function orderStampColumn(schema: string): string {
  return `CASE WHEN o.id IS NOT NULL THEN concat_ws(',', o.xmin, o.ctid,
    (SELECT max(h.seq) FROM ${tableIn(schema)('order_status_history')} h WHERE h.order_id = o.id)) END`;
}

/** About how many bytes an order read with `orderWithHistoryColumns` holds in memory (its texts, its history). */
export function orderRowBytes(row: Record<string, unknown>): number {
  let bytes = 512;
  for (const [, field, json] of FIELDS) {
    const value = row[field];
    if (typeof value === 'string') bytes += (json ? 3 : 2) * value.length;
  }
  const history = row.history;
  return bytes + (Array.isArray(history) ? history.length * 256 : 0);
}

/** The order and its history of a row read with `orderWithHistoryColumns`, or of the JSON object an admission reads (`order_read`). */
export function orderWithHistoryOf(row: Record<string, unknown>): { order: OrderRecord; history: HistoryRecord[] } {
  const fields: Record<string, unknown> = {};
  for (const [, field] of FIELDS) fields[field] = row[field];
  return { order: toRecord(fields as OrderRow), history: row.history as HistoryRecord[] };
}

const values = (o: OrderRecord) =>
  FIELDS.map(([, field, json]) => {
    const value = o[field];
    return json && value !== null ? JSON.stringify(value) : value;
  });

const HISTORY = `status, at, by, integration_id AS "integrationId", reason`;

/** A history entry's five parameters after the order's `n`. */
const entryParams = (n: number) => [1, 2, 3, 4, 5].map((i) => `$${n + i}`).join(', ');
const entryValues = (h: HistoryRecord) => [h.status, h.at, h.by, h.integrationId, h.reason];

export function ordersSql(schema: string) {
  const t = tableIn(schema);
  return {
    insert: statement(`INSERT INTO ${t('orders')} (${FIELDS.map(([c]) => c).join(', ')}) VALUES (${FIELDS.map((_, i) => `$${i + 1}`).join(', ')})`),
    update: statement(`UPDATE ${t('orders')} SET ${FIELDS.slice(1).map(([c], i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`),
    byId: statement(`SELECT ${ORDER} FROM ${t('orders')} WHERE id = $1`),
    lock: statement(`SELECT ${ORDER} FROM ${t('orders')} WHERE id = $1 FOR UPDATE`),
    // The same with its history (a transaction's lock: its event presents the order with no read more).
    lockWithHistory: statement(`SELECT ${orderWithHistoryColumns(schema)} FROM ${t('orders')} o WHERE o.id = $1 FOR UPDATE OF o`),
    byExternal: statement(`SELECT ${ORDER} FROM ${t('orders')} WHERE store_id = $1 AND external_id = $2`),
    list: statement(
      `SELECT ${ORDER} FROM ${t('orders')} WHERE store_id = $1 AND number > $2
         AND ($4::text[] IS NULL OR status = ANY($4::text[]))
         AND ($5::text IS NULL OR ack_status = $5::text)
         AND ($6::bigint IS NULL OR created_at >= $6::bigint)
         AND ($7::bigint IS NULL OR updated_at >= $7::bigint)
       ORDER BY number LIMIT $3`,
    ),
    waitingAck: statement(`SELECT ${ORDER} FROM ${t('orders')} WHERE store_id = $1 AND ack_status <> 'acknowledged' ORDER BY number`),
    // Two writers of one order's history hold its row (byId with lock); unlocked, one meets the
    // primary key and its transaction runs again (env-store.ts).
    insertHistory: statement(
      `INSERT INTO ${t('order_status_history')} (order_id, seq, status, at, by, integration_id, reason)
       VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${t('order_status_history')} WHERE order_id = $1), $2, $3, $4, $5, $6)`,
    ),
    // The order's row and its history entry in one statement (issue 25: a status change and a new
    // order wrote them in two). The entry's parameters follow the order's; the entry's position is
    // read as `insertHistory` reads it (the order's row is held, or new).
    updateWithHistory: statement(
      `WITH o AS (UPDATE ${t('orders')} SET ${FIELDS.slice(1).map(([c], i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1)
       INSERT INTO ${t('order_status_history')} (order_id, seq, status, at, by, integration_id, reason)
       VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${t('order_status_history')} WHERE order_id = $1), ${entryParams(FIELDS.length)})`,
    ),
    insertWithHistory: statement(
      `WITH o AS (INSERT INTO ${t('orders')} (${FIELDS.map(([c]) => c).join(', ')}) VALUES (${FIELDS.map((_, i) => `$${i + 1}`).join(', ')}))
       INSERT INTO ${t('order_status_history')} (order_id, seq, status, at, by, integration_id, reason)
       VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${t('order_status_history')} WHERE order_id = $1), ${entryParams(FIELDS.length)})`,
    ),
    history: statement(`SELECT ${HISTORY} FROM ${t('order_status_history')} WHERE order_id = $1 ORDER BY seq`),
    // The order and its history in one statement, one snapshot (issue 25: GET /orders/{id}).
    withHistory: statement(`SELECT ${orderWithHistoryColumns(schema)} FROM ${t('orders')} o WHERE o.id = $1`),
    lastNumber: statement(`SELECT MAX(number) AS n FROM ${t('orders')} WHERE store_id = $1`),
    // The simulator's view of the catalog: what a customer can put in the cart right now. The store's
    // catalog version (0: no row, an empty catalog), and the ids as one array only when that version
    // is not the one of the ids kept ($3, null: none kept): issue 25, fourteenth step.
    orderable: statement(
      `SELECT COALESCE(v.version, 0)::text AS version, CASE WHEN COALESCE(v.version, 0) IS DISTINCT FROM $3::bigint THEN ARRAY(
         SELECT p.id FROM ${t('products')} p JOIN ${t('categories')} c ON c.id = p.category_id
         WHERE p.store_id = $1 AND p.active AND p.available AND c.active AND (NOT $2 OR p.external_id IS NULL)
         ORDER BY p.id) END AS ids
       FROM (VALUES (0)) AS one (n) LEFT JOIN ${t('catalog_versions')} v ON v.store_id = $1`,
    ),
    /** The orderable ids read last, shared by every transaction of the adapter (see `orderableIds`). */
    orderableKept: new Kept<KeptOrderable>(MAX_KEPT_ORDERABLE, MAX_KEPT_ORDERABLE_BYTES, (k) => k.bytes),
  };
}

/** A store's orderable product ids at its catalog version (a transaction id, as text: bigint), frozen: handed to every reader. */
export interface KeptOrderable {
  version: string;
  ids: readonly string[];
  bytes: number;
}

export const MAX_KEPT_ORDERABLE = 1000;
const MAX_KEPT_ORDERABLE_BYTES = 16 * 1024 * 1024;

/**
 * A store's orderable product ids (only panel ones with `panelOnly`), kept by store and panelOnly with
 * the store's catalog version they were read at: the statement sends them again only when that version
 * moved (issue 25, fourteenth step: the simulator read all of them, 200 rows, for every order). The
 * version is the last transaction that wrote the store's categories, products, option groups or options
 * (set at its COMMIT, migration 9), read in the same statement as the ids would be, so the kept ids are
 * what this statement's snapshot would read, in a transaction or not. Two exceptions, where the
 * version does not cover what the snapshot sees: a transaction that wrote the catalog itself reads the
 * ids whole and keeps nothing. A reset or a restore needs no drop: its rows are written by a new
 * transaction, and a transaction id never comes back in a cluster, so no kept version matches again
 * (version 0, an empty catalog, has no ids before or after); a stale entry is replaced by the next read.
 */
async function orderableIds(conn: Conn, s: ReturnType<typeof ordersSql>, storeId: string, panelOnly: boolean): Promise<readonly string[]> {
  const own = conn.wrote?.('catalog') ?? false;
  const key = `${panelOnly ? 'panel' : 'all'}:${storeId}`;
  const kept = own ? undefined : s.orderableKept.get(key);
  const [row] = await conn.rows<{ version: string; ids: string[] | null }>(s.orderable, [storeId, panelOnly, kept?.version ?? null]);
  if (row!.ids === null) return kept!.ids;
  const ids = Object.freeze(row!.ids);
  if (!own) s.orderableKept.keep(key, { version: row!.version, ids, bytes: 64 + ids.reduce((n, id) => n + 2 * id.length + 16, 0) });
  return ids;
}

/**
 * The orders repository on `conn`. With `histories` (a transaction's: nothing kept outlives it) the
 * history of an order locked or inserted in the transaction is kept with its later entries, and
 * `history` answers from there (issue 25: the event's presentation reads nothing); the order's row
 * and its history writes are then sent without waiting (`Conn.send`), when the connection can.
 */
export function pgOrders(conn: Conn, s: ReturnType<typeof ordersSql>, environment: Environment, histories?: Map<string, HistoryRecord[]>): OrdersRepository {
  const changed = (storeId: string | null, orderId: string) => conn.changed({ topic: 'orders', environment, storeId, orderId });
  const many = async (st: typeof s.byId, args: unknown[]) => (await conn.rows<OrderRow>(st, args)).map(toRecord);
  const write = (st: typeof s.update, args: unknown[]) => (conn.send ? (conn.send(st, args), Promise.resolve()) : conn.run(st, args).then(() => undefined));
  return {
    async insert(o, entry) {
      await (entry ? write(s.insertWithHistory, [...values(o), ...entryValues(entry)]) : write(s.insert, values(o)));
      histories?.set(o.id, entry ? [{ ...entry }] : []);
      changed(o.storeId, o.id);
      if (entry) changed(null, o.id);
    },
    async byId(id, options) {
      if (!options?.lock || !histories) return (await many(options?.lock ? s.lock : s.byId, [id]))[0];
      const [row] = await conn.rows<Record<string, unknown>>(s.lockWithHistory, [id]);
      if (!row) return undefined;
      const { order, history } = orderWithHistoryOf(row);
      // A lock that waited for another writer returns the order as that writer committed it, but the
      // history as the statement's snapshot had it, from before. Every history entry is a status
      // change (to a later status: status-machine.ts), so a history that ends on another status than
      // the order's is one of those: it is read again when asked.
      if (history.at(-1)?.status === order.status) histories.set(id, history);
      else histories.delete(id);
      return order;
    },
    byExternalId: async (storeId, externalId) => (await many(s.byExternal, [storeId, externalId]))[0],
    async update(o, entry) {
      if (!entry) {
        await write(s.update, values(o));
        changed(o.storeId, o.id);
        return;
      }
      await write(s.updateWithHistory, [...values(o), ...entryValues(entry)]);
      histories?.get(o.id)?.push({ ...entry });
      changed(o.storeId, o.id);
      changed(null, o.id);
    },
    list: (a) => many(s.list, [a.storeId, a.afterNumber, a.limit, a.statuses, a.ackStatus, a.createdSince, a.updatedSince]),
    notAcknowledged: (storeId) => many(s.waitingAck, [storeId]),
    async addHistory(orderId, h) {
      await write(s.insertHistory, [orderId, h.status, h.at, h.by, h.integrationId, h.reason]);
      histories?.get(orderId)?.push({ status: h.status, at: h.at, by: h.by, integrationId: h.integrationId, reason: h.reason });
      changed(null, orderId);
    },
    async history(orderId) {
      const kept = histories?.get(orderId);
      if (kept) return kept.map((h) => ({ ...h }));
      return conn.rows<HistoryRecord>(s.history, [orderId]);
    },
    async withHistory(id) {
      const [row] = await conn.rows<Record<string, unknown>>(s.withHistory, [id]);
      return row && orderWithHistoryOf(row);
    },
    lastNumber: async (storeId) => (await conn.rows<{ n: number | null }>(s.lastNumber, [storeId]))[0]?.n ?? 0,
    orderableProductIds: (storeId, panelOnly = false) => orderableIds(conn, s, storeId, panelOnly),
  };
}
