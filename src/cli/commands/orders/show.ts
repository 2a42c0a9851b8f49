import type { Order } from '../../../contract/orders.js';
import { FINAL_ORDER_STATUSES } from '../../../contract/enums.js';
import { printLine, printSummary, printTable, formatTable, type Column } from '../../output.js';

/** The columns of `orders list`. */
const ORDER_COLUMNS: Column<Order>[] = [
  { header: 'NUMBER', value: (o) => o.number, align: 'right' },
  { header: 'ID', value: (o) => o.id },
  { header: 'STATUS', value: (o) => o.status },
  { header: 'TYPE', value: (o) => o.fulfillment_type },
  { header: 'CUSTOMER', value: (o) => o.customer.name },
  { header: 'TOTAL', value: (o) => `${o.totals.total} ${o.totals.currency}`, align: 'right' },
  { header: 'ACK', value: (o) => o.integration.ack_status },
  { header: 'CREATED', value: (o) => o.created_at },
];

/** Orders as an aligned table. */
export function printOrders(orders: Order[]): void {
  printTable(orders, ORDER_COLUMNS, 'No orders.');
}

function ackState(o: Order): string {
  const i = o.integration;
  if (i.ack_status === 'acknowledged') return `acknowledged as ${i.external_id}${i.external_number ? ` (#${i.external_number})` : ''} at ${i.acknowledged_at}`;
  if (i.ack_status === 'failed' && i.last_import_error) return `failed: ${i.last_import_error.code} — ${i.last_import_error.message}`;
  return i.ack_status;
}

/**
 * The status, its reason, and the estimated minutes while they still mean something: an order
 * completed, rejected or cancelled keeps `estimated_minutes` in the API but is no longer on its way.
 */
export function statusText(o: Pick<Order, 'status' | 'status_reason' | 'estimated_minutes'>): string {
  const final = (FINAL_ORDER_STATUSES as readonly string[]).includes(o.status);
  const minutes = o.estimated_minutes && !final ? `, ~${o.estimated_minutes} min` : '';
  return `${o.status}${o.status_reason ? ` — ${o.status_reason}` : ''}${minutes}`;
}

/** One order: number, status, customer, items, totals, ack state. */
export function printOrder(o: Order): void {
  const customer = `${o.customer.name} (${o.customer.phone})${o.customer.billing ? `, ${o.customer.billing.document_type.toUpperCase()} ${o.customer.billing.document}` : ''}`;
  const address = o.delivery_address ? `${o.delivery_address.street} ${o.delivery_address.number}, ${o.delivery_address.city}` : undefined;
  printSummary([
    ['Order', `#${o.number} (${o.id})`],
    ['Status', statusText(o)],
    ['Type', o.fulfillment_type],
    ['Customer', customer],
    ['Address', address],
    ['Payment', `${o.payment.method_name} (${o.payment.method_code}), ${o.payment.status}`],
    ['Created', o.created_at],
    ['Ack', ackState(o)],
  ]);
  printLine();
  const items = formatTable(o.items, [
    { header: 'QTY', value: (i) => i.quantity, align: 'right' },
    { header: 'ITEM', value: (i) => `${i.name}${i.product.external_id ? '' : ' [no external_id]'}` },
    { header: 'OPTIONS', value: (i) => i.options.map((op) => `${op.quantity > 1 ? `${op.quantity}× ` : ''}${op.name}`).join(', ') },
    { header: 'LINE TOTAL', value: (i) => i.line_total, align: 'right' },
  ]);
  printLine(items);
  printLine();
  printSummary([
    ['Subtotal', o.totals.subtotal],
    ['Delivery fee', o.totals.delivery_fee],
    ['Discount', o.totals.discount],
    ['Total', `${o.totals.total} ${o.totals.currency}`],
  ]);
}
