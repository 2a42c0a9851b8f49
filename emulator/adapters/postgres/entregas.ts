import type { EntregaRecord, EntregasRepository } from '../../entregas/repository.js';
import { statement, tableIn, type Conn } from './conn.js';

// Independent deliveries (courier coordination); amounts are whole guaraníes. See docs/entregas.md.

type Row = Omit<EntregaRecord, 'customer' | 'address' | 'history'> & { customer: string; address: string; history: string };

const toRecord = (r: Row): EntregaRecord => ({ ...r, customer: JSON.parse(r.customer), address: JSON.parse(r.address), history: JSON.parse(r.history) });

const FIELDS: [column: string, field: keyof EntregaRecord][] = [
  ['id', 'id'], ['store_id', 'storeId'], ['integration_id', 'integrationId'], ['request_key', 'requestKey'], ['fingerprint', 'fingerprint'],
  ['order_id', 'orderId'], ['status', 'status'], ['payment_method', 'paymentMethod'], ['customer', 'customer'], ['address', 'address'],
  ['customer_total', 'customerTotal'], ['customer_fee', 'customerFee'], ['courier_fee', 'courierFee'], ['return_fee', 'returnFee'],
  ['settlement_confirmed', 'settlementConfirmed'], ['goods_received', 'goodsReceived'], ['refund_confirmed', 'refundConfirmed'],
  ['transfer_received', 'transferReceived'], ['cancel_reason', 'cancelReason'], ['notes', 'notes'], ['delivery_code', 'deliveryCode'],
  ['tracking_token', 'trackingToken'], ['history', 'history'], ['created_at', 'createdAt'], ['updated_at', 'updatedAt'],
];
const JSON_FIELDS = new Set<keyof EntregaRecord>(['customer', 'address', 'history']);

const ENTREGA = FIELDS.map(([column, field]) => (column === field ? column : `${column} AS "${field}"`)).join(', ');

const values = (e: EntregaRecord) => FIELDS.map(([, field]) => (JSON_FIELDS.has(field) ? JSON.stringify(e[field]) : e[field]));

export function entregasSql(schema: string) {
  const t = tableIn(schema);
  return {
    insert: statement(`INSERT INTO ${t('entregas')} (${FIELDS.map(([c]) => c).join(', ')}) VALUES (${FIELDS.map((_, i) => `$${i + 1}`).join(', ')})`),
    // What an action changes (the same columns as the SQLite adapter writes).
    update: statement(
      `UPDATE ${t('entregas')} SET status = $2, courier_fee = $3, return_fee = $4, settlement_confirmed = $5, goods_received = $6,
         refund_confirmed = $7, cancel_reason = $8, history = $9, updated_at = $10 WHERE id = $1`,
    ),
    byId: statement(`SELECT ${ENTREGA} FROM ${t('entregas')} WHERE id = $1`),
    lock: statement(`SELECT ${ENTREGA} FROM ${t('entregas')} WHERE id = $1 FOR UPDATE`),
    byRequestKey: statement(`SELECT ${ENTREGA} FROM ${t('entregas')} WHERE store_id = $1 AND request_key = $2`),
    byToken: statement(`SELECT ${ENTREGA} FROM ${t('entregas')} WHERE tracking_token = $1`),
    openForOrder: statement(`SELECT ${ENTREGA} FROM ${t('entregas')} WHERE order_id = $1 AND status NOT IN ('cancelled', 'returned') LIMIT 1`),
  };
}

export function pgEntregas(conn: Conn, s: ReturnType<typeof entregasSql>): EntregasRepository {
  const one = async (st: typeof s.byId, args: unknown[]) => (await conn.rows<Row>(st, args)).map(toRecord)[0];
  return {
    async insert(e) {
      await conn.run(s.insert, values(e));
    },
    async update(e) {
      await conn.run(s.update, [
        e.id, e.status, e.courierFee, e.returnFee, e.settlementConfirmed, e.goodsReceived, e.refundConfirmed, e.cancelReason,
        JSON.stringify(e.history), e.updatedAt,
      ]);
    },
    byId: (id, options) => one(options?.lock ? s.lock : s.byId, [id]),
    byRequestKey: (storeId, key) => one(s.byRequestKey, [storeId, key]),
    byTrackingToken: (token) => one(s.byToken, [token]),
    openForOrder: (orderId) => one(s.openForOrder, [orderId]),
  };
}
