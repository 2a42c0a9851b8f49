import type { EntregaRecord } from './repository.js';
import type { Entrega } from '../../src/contract/entregas.js';
import { formatDate } from '../../src/contract/dates.js';
import { entregaBalance } from './rules.js';

/** The customer's tracking page of a delivery, under the emulator's own address. */
export const trackingUrl = (origin: string, token: string) => `${origin}/_emulator/tracking/${token}`;

/**
 * spec: Independent delivery — the record as the merchant's credential of its store reads it,
 * with the private `delivery_code` and `tracking_url` (for the customer, never for the courier).
 */
export function presentEntrega(e: EntregaRecord, origin: string): Entrega {
  return { ...courierView(e), delivery_code: e.deliveryCode, tracking_url: trackingUrl(origin, e.trackingToken) };
}

/** What the courier side sees: everything but the customer's private code and tracking link. */
export function courierView(e: EntregaRecord): Omit<Entrega, 'delivery_code' | 'tracking_url'> {
  return {
    id: e.id,
    request_key: e.requestKey,
    order_id: e.orderId,
    status: e.status,
    payment_method: e.paymentMethod,
    customer: e.customer,
    address: e.address,
    customer_total: e.customerTotal,
    customer_fee: e.customerFee,
    courier_fee: e.courierFee,
    return_fee: e.returnFee,
    balance: entregaBalance(e),
    settlement_confirmed: e.settlementConfirmed,
    goods_received: e.goodsReceived,
    refund_confirmed: e.refundConfirmed,
    transfer_received: e.transferReceived,
    cancel_reason: e.cancelReason,
    notes: e.notes,
    history: e.history.map((h) => ({ status: h.status, at: formatDate(h.at), note: h.note })),
    created_at: formatDate(e.createdAt),
    updated_at: formatDate(e.updatedAt),
  };
}
