import type { Db } from './open.js';
import type { EntregaStatus } from '../../../src/contract/entregas.js';
import type { EntregaRecord, EntregasRepository } from '../../entregas/repository.js';
import { prepareLazily } from './lazy-statement.js';

// Independent deliveries (courier coordination); amounts are whole guaraníes. See docs/entregas.md.

interface Row {
  id: string;
  store_id: string;
  integration_id: string;
  request_key: string;
  fingerprint: string;
  order_id: string | null;
  status: string;
  payment_method: string;
  customer: string;
  address: string;
  customer_total: number;
  customer_fee: number;
  courier_fee: number;
  return_fee: number | null;
  settlement_confirmed: number;
  goods_received: number;
  refund_confirmed: number;
  transfer_received: number;
  cancel_reason: string | null;
  notes: string | null;
  delivery_code: string;
  tracking_token: string;
  history: string;
  created_at: number;
  updated_at: number;
}

const toRecord = (r: Row): EntregaRecord => ({
  id: r.id,
  storeId: r.store_id,
  integrationId: r.integration_id,
  requestKey: r.request_key,
  fingerprint: r.fingerprint,
  orderId: r.order_id,
  status: r.status as EntregaStatus,
  paymentMethod: r.payment_method as EntregaRecord['paymentMethod'],
  customer: JSON.parse(r.customer),
  address: JSON.parse(r.address),
  customerTotal: r.customer_total,
  customerFee: r.customer_fee,
  courierFee: r.courier_fee,
  returnFee: r.return_fee,
  settlementConfirmed: r.settlement_confirmed === 1,
  goodsReceived: r.goods_received === 1,
  refundConfirmed: r.refund_confirmed === 1,
  transferReceived: r.transfer_received === 1,
  cancelReason: r.cancel_reason,
  notes: r.notes,
  deliveryCode: r.delivery_code,
  trackingToken: r.tracking_token,
  history: JSON.parse(r.history),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toParams = (e: EntregaRecord) => ({
  id: e.id,
  store_id: e.storeId,
  integration_id: e.integrationId,
  request_key: e.requestKey,
  fingerprint: e.fingerprint,
  order_id: e.orderId,
  status: e.status,
  payment_method: e.paymentMethod,
  customer: JSON.stringify(e.customer),
  address: JSON.stringify(e.address),
  customer_total: e.customerTotal,
  customer_fee: e.customerFee,
  courier_fee: e.courierFee,
  return_fee: e.returnFee,
  settlement_confirmed: e.settlementConfirmed ? 1 : 0,
  goods_received: e.goodsReceived ? 1 : 0,
  refund_confirmed: e.refundConfirmed ? 1 : 0,
  transfer_received: e.transferReceived ? 1 : 0,
  cancel_reason: e.cancelReason,
  notes: e.notes,
  delivery_code: e.deliveryCode,
  tracking_token: e.trackingToken,
  history: JSON.stringify(e.history),
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

export function sqliteEntregas(db: Db): EntregasRepository {
  const insert = prepareLazily(db,
    `INSERT INTO entregas (id, store_id, integration_id, request_key, fingerprint, order_id, status, payment_method, customer,
       address, customer_total, customer_fee, courier_fee, return_fee, settlement_confirmed, goods_received, refund_confirmed,
       transfer_received, cancel_reason, notes, delivery_code, tracking_token, history, created_at, updated_at)
     VALUES (@id, @store_id, @integration_id, @request_key, @fingerprint, @order_id, @status, @payment_method, @customer,
       @address, @customer_total, @customer_fee, @courier_fee, @return_fee, @settlement_confirmed, @goods_received,
       @refund_confirmed, @transfer_received, @cancel_reason, @notes, @delivery_code, @tracking_token, @history, @created_at, @updated_at)`,
  );
  const update = prepareLazily(db,
    `UPDATE entregas SET status = @status, courier_fee = @courier_fee, return_fee = @return_fee,
       settlement_confirmed = @settlement_confirmed, goods_received = @goods_received, refund_confirmed = @refund_confirmed,
       cancel_reason = @cancel_reason, history = @history, updated_at = @updated_at WHERE id = @id`,
  );
  const byId = prepareLazily<[string], Row>(db, 'SELECT * FROM entregas WHERE id = ?');
  const byRequestKey = prepareLazily<[string, string], Row>(db, 'SELECT * FROM entregas WHERE store_id = ? AND request_key = ?');
  const byToken = prepareLazily<[string], Row>(db, 'SELECT * FROM entregas WHERE tracking_token = ?');
  const openForOrder = prepareLazily<[string], Row>(db,
    "SELECT * FROM entregas WHERE order_id = ? AND status NOT IN ('cancelled', 'returned') LIMIT 1",
  );
  const one = (row: Row | undefined) => (row ? toRecord(row) : undefined);

  return {
    async insert(e) {
      insert.run(toParams(e));
    },
    async update(e) {
      update.run(toParams(e));
    },
    // One transaction at a time on the embedded database: nothing to lock.
    byId: async (id) => one(byId.get(id)),
    byRequestKey: async (storeId, key) => one(byRequestKey.get(storeId, key)),
    byTrackingToken: async (token) => one(byToken.get(token)),
    openForOrder: async (orderId) => one(openForOrder.get(orderId)),
  };
}
