import type { Db } from './open.js';
import type { AckStatus, ChangeActor, OrderStatus } from '../../../src/contract/orders.js';
import type { HistoryRecord, OrderRecord, OrdersRepository } from '../../orders/repository.js';
import { prepareLazily } from './lazy-statement.js';

// The orders aggregate's tables: orders (items, customer, address and payment are JSON of the row:
// spec: Order rule 1, copies at purchase time) and their status history.

interface OrderRow {
  id: string;
  store_id: string;
  number: number;
  status: string;
  status_reason: string | null;
  fulfillment_type: string;
  estimated_minutes: number | null;
  created_at: number;
  updated_at: number;
  scheduled_for: number | null;
  customer: string;
  delivery_address: string | null;
  payment: string;
  payment_status: string;
  items: string;
  notes: string;
  subtotal: number;
  delivery_fee: number;
  discount: number;
  total: number;
  ack_status: string;
  external_id: string | null;
  external_number: string | null;
  acknowledged_at: number | null;
  ack_integration_id: string | null;
  last_import_error: string | null;
  accepted_at: number | null;
}

interface HistoryRow {
  status: string;
  at: number;
  by: string;
  integration_id: string | null;
  reason: string | null;
}

const toRecord = (r: OrderRow): OrderRecord => ({
  id: r.id,
  storeId: r.store_id,
  number: r.number,
  status: r.status as OrderStatus,
  statusReason: r.status_reason,
  fulfillmentType: r.fulfillment_type as OrderRecord['fulfillmentType'],
  estimatedMinutes: r.estimated_minutes,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  scheduledFor: r.scheduled_for,
  customer: JSON.parse(r.customer),
  deliveryAddress: r.delivery_address === null ? null : JSON.parse(r.delivery_address),
  payment: JSON.parse(r.payment),
  paymentStatus: r.payment_status as OrderRecord['paymentStatus'],
  items: JSON.parse(r.items),
  notes: r.notes,
  subtotal: r.subtotal,
  deliveryFee: r.delivery_fee,
  discount: r.discount,
  total: r.total,
  ackStatus: r.ack_status as AckStatus,
  externalId: r.external_id,
  externalNumber: r.external_number,
  acknowledgedAt: r.acknowledged_at,
  ackIntegrationId: r.ack_integration_id,
  lastImportError: r.last_import_error === null ? null : JSON.parse(r.last_import_error),
  acceptedAt: r.accepted_at,
});

const toRow = (o: OrderRecord): OrderRow => ({
  id: o.id,
  store_id: o.storeId,
  number: o.number,
  status: o.status,
  status_reason: o.statusReason,
  fulfillment_type: o.fulfillmentType,
  estimated_minutes: o.estimatedMinutes,
  created_at: o.createdAt,
  updated_at: o.updatedAt,
  scheduled_for: o.scheduledFor,
  customer: JSON.stringify(o.customer),
  delivery_address: o.deliveryAddress === null ? null : JSON.stringify(o.deliveryAddress),
  payment: JSON.stringify(o.payment),
  payment_status: o.paymentStatus,
  items: JSON.stringify(o.items),
  notes: o.notes,
  subtotal: o.subtotal,
  delivery_fee: o.deliveryFee,
  discount: o.discount,
  total: o.total,
  ack_status: o.ackStatus,
  external_id: o.externalId,
  external_number: o.externalNumber,
  acknowledged_at: o.acknowledgedAt,
  ack_integration_id: o.ackIntegrationId,
  last_import_error: o.lastImportError === null ? null : JSON.stringify(o.lastImportError),
  accepted_at: o.acceptedAt,
});

const COLUMNS: (keyof OrderRow)[] = [
  'id', 'store_id', 'number', 'status', 'status_reason', 'fulfillment_type', 'estimated_minutes', 'created_at', 'updated_at',
  'scheduled_for', 'customer', 'delivery_address', 'payment', 'payment_status', 'items', 'notes', 'subtotal', 'delivery_fee',
  'discount', 'total', 'ack_status', 'external_id', 'external_number', 'acknowledged_at', 'ack_integration_id',
  'last_import_error', 'accepted_at',
];

/**
 * `changed(storeId, orderId)` is told of every write to an order or its history, as it is made (a
 * kept order text is forgotten; a rolled-back write makes it forget a little more than it had to).
 */
export function sqliteOrders(db: Db, changed: (storeId: string | null, orderId: string) => void = () => undefined): OrdersRepository {
  const insert = prepareLazily(db, `INSERT INTO orders (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`);
  const update = prepareLazily(db, `UPDATE orders SET ${COLUMNS.filter((c) => c !== 'id').map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`);
  const byId = prepareLazily<[string], OrderRow>(db, 'SELECT * FROM orders WHERE id = ?');
  const byExternal = prepareLazily<[string, string], OrderRow>(db, 'SELECT * FROM orders WHERE store_id = ? AND external_id = ?');
  const list = prepareLazily<
    { store_id: string; after: number; limit: number; statuses: string | null; ack_status: string | null; created_since: number | null; updated_since: number | null },
    OrderRow
  >(db,
    `SELECT * FROM orders WHERE store_id = @store_id AND number > @after
       AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))
       AND (@ack_status IS NULL OR ack_status = @ack_status)
       AND (@created_since IS NULL OR created_at >= @created_since)
       AND (@updated_since IS NULL OR updated_at >= @updated_since)
     ORDER BY number LIMIT @limit`,
  );
  const waitingAck = prepareLazily<[string], OrderRow>(db, "SELECT * FROM orders WHERE store_id = ? AND ack_status <> 'acknowledged' ORDER BY number");
  const insertHistory = prepareLazily(db,
    `INSERT INTO order_status_history (order_id, seq, status, at, by, integration_id, reason)
     VALUES (@order_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM order_status_history WHERE order_id = @order_id), @status, @at, @by, @integration_id, @reason)`,
  );
  const history = prepareLazily<[string], HistoryRow>(db, 'SELECT * FROM order_status_history WHERE order_id = ? ORDER BY seq');
  const lastNumber = prepareLazily<[string], number | null>(db, 'SELECT MAX(number) FROM orders WHERE store_id = ?').pluck();
  // The simulator's view of the catalog: what a customer can put in the cart right now.
  const orderable = prepareLazily<{ store_id: string; panel_only: number }, { id: string }>(db,
    `SELECT p.id FROM products p JOIN categories c ON c.id = p.category_id
     WHERE p.store_id = @store_id AND p.active = 1 AND p.available = 1 AND c.active = 1
       AND (@panel_only = 0 OR p.external_id IS NULL)
     ORDER BY p.id`,
  );
  const addHistory = (orderId: string, h: HistoryRecord) => {
    insertHistory.run({ order_id: orderId, status: h.status, at: h.at, by: h.by, integration_id: h.integrationId, reason: h.reason });
    changed(null, orderId);
  };
  return {
    async insert(o, entry) {
      insert.run(toRow(o));
      changed(o.storeId, o.id);
      if (entry) addHistory(o.id, entry);
    },
    // One transaction runs at a time on the embedded database: nothing to lock.
    async byId(id) {
      const row = byId.get(id);
      return row ? toRecord(row) : undefined;
    },
    async byExternalId(storeId, externalId) {
      const row = byExternal.get(storeId, externalId);
      return row ? toRecord(row) : undefined;
    },
    async update(o, entry) {
      update.run(toRow(o));
      changed(o.storeId, o.id);
      if (entry) addHistory(o.id, entry);
    },
    async list(a) {
      return list
        .all({
          store_id: a.storeId, after: a.afterNumber, limit: a.limit, statuses: a.statuses ? JSON.stringify(a.statuses) : null,
          ack_status: a.ackStatus, created_since: a.createdSince, updated_since: a.updatedSince,
        })
        .map(toRecord);
    },
    async notAcknowledged(storeId) {
      return waitingAck.all(storeId).map(toRecord);
    },
    async addHistory(orderId, h) {
      addHistory(orderId, h);
    },
    async history(orderId) {
      return history.all(orderId).map(toHistory);
    },
    async lastNumber(storeId) {
      return lastNumber.get(storeId) ?? 0;
    },
    async orderableProductIds(storeId, panelOnly = false) {
      return orderable.all({ store_id: storeId, panel_only: panelOnly ? 1 : 0 }).map((r) => r.id);
    },
  };
}

const toHistory = (h: HistoryRow): HistoryRecord => ({
  status: h.status as OrderStatus,
  at: h.at,
  by: h.by as ChangeActor,
  integrationId: h.integration_id,
  reason: h.reason,
});
