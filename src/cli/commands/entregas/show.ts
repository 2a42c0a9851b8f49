import type { Entrega } from '../../../contract/entregas.js';
import { printSummary } from '../../output.js';

/** One delivery. The delivery code and tracking URL are the customer's: shown for sharing with the customer only. */
export function printEntrega(e: Entrega): void {
  printSummary([
    ['Delivery', `${e.id} (request key ${e.request_key})`],
    ['Status', `${e.status}${e.cancel_reason ? ` — ${e.cancel_reason}` : ''}`],
    ['Order', e.order_id],
    ['Customer', `${e.customer.name} (${e.customer.phone})`],
    ['Address', `${e.address.line}${e.address.reference ? ` (${e.address.reference})` : ''}`],
    ['Payment', e.payment_method],
    ['Customer total', e.customer_total],
    ['Customer fee', e.customer_fee],
    ['Courier fee', e.courier_fee],
    ['Return fee', e.return_fee ?? undefined],
    ['Balance', `${e.balance} (${e.balance >= 0 ? 'courier hands to the store' : 'store hands to the courier'})`],
    ['Settlement confirmed', e.settlement_confirmed ? 'yes' : 'no'],
    ['Goods received', e.goods_received ? 'yes' : 'no'],
    ['Code (customer only)', e.delivery_code],
    ['Tracking (customer only)', e.tracking_url],
    ['Updated', e.updated_at],
  ]);
}
