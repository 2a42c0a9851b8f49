import type { HistoryRecord, OrderRecord, OrdersRepository, StoredItem } from './repository.js';
import type { Order } from '../../src/contract/orders.js';
import { formatAmount } from '../../src/contract/amounts.js';
import { formatDate, formatNullableDate } from '../../src/contract/dates.js';

function presentItem(item: StoredItem): Order['items'][number] {
  return {
    line: item.line,
    product: { id: item.productId, external_id: item.productExternalId, sku: item.sku },
    name: item.name,
    unit_price: formatAmount(item.unitPrice),
    quantity: item.quantity,
    options: item.options.map((o) => ({
      group_name: o.groupName,
      group_external_id: o.groupExternalId,
      option: { id: o.optionId, external_id: o.optionExternalId },
      name: o.name,
      unit_price: formatAmount(o.unitPrice),
      quantity: o.quantity,
    })),
    notes: item.notes,
    line_total: formatAmount(item.lineTotal),
  };
}

/** spec: Resources, Order — the complete order as the API and the events show it (its history read here). */
export async function presentOrder(orders: OrdersRepository, o: OrderRecord): Promise<Order> {
  return presentOrderWith(o, await orders.history(o.id));
}

/** Orders as the transaction that wrote them presented them, after its last write (see `keepPresented`). */
const presentedByTheirWrite = new WeakMap<OrderRecord, Order>();

/**
 * Presents `o` and keeps the view with the record: the command's answer (`presentAnswer`) is then
 * what its own transaction read, with no read again after the commit (issue 25). Only for a record
 * that nothing writes to after this call (a command's last state of the order).
 */
export async function keepPresented(orders: OrdersRepository, o: OrderRecord): Promise<Order> {
  const view = await presentOrder(orders, o);
  presentedByTheirWrite.set(o, view);
  return view;
}

/** The view a command's transaction kept for `o` (`keepPresented`), if it kept one. */
export function keptView(o: OrderRecord): Order | undefined {
  return presentedByTheirWrite.get(o);
}

/** A command's answer: the view its transaction kept (`keepPresented`), else read now. */
export function presentAnswer(orders: OrdersRepository, o: OrderRecord): Promise<Order> {
  const kept = presentedByTheirWrite.get(o);
  return kept ? Promise.resolve(kept) : presentOrder(orders, o);
}

/** The order with the history given. */
export function presentOrderWith(o: OrderRecord, history: HistoryRecord[]): Order {
  const error = o.lastImportError;
  return {
    id: o.id,
    number: o.number,
    store_id: o.storeId,
    status: o.status,
    status_reason: o.statusReason,
    fulfillment_type: o.fulfillmentType,
    estimated_minutes: o.estimatedMinutes,
    created_at: formatDate(o.createdAt),
    updated_at: formatDate(o.updatedAt),
    scheduled_for: formatNullableDate(o.scheduledFor),
    customer: o.customer,
    delivery_address: o.deliveryAddress,
    payment: {
      method_code: o.payment.methodCode,
      method_name: o.payment.methodName,
      change_for: o.payment.changeFor === null ? null : formatAmount(o.payment.changeFor),
      status: o.paymentStatus,
    },
    items: o.items.map(presentItem),
    notes: o.notes,
    totals: {
      subtotal: formatAmount(o.subtotal),
      delivery_fee: formatAmount(o.deliveryFee),
      discount: formatAmount(o.discount),
      total: formatAmount(o.total),
      currency: 'PYG',
    },
    integration: {
      external_id: o.externalId,
      external_number: o.externalNumber,
      ack_status: o.ackStatus,
      acknowledged_at: formatNullableDate(o.acknowledgedAt),
      last_import_error: error
        ? { code: error.code as NonNullable<Order['integration']['last_import_error']>['code'], message: error.message, retryable: error.retryable, at: formatDate(error.at) }
        : null,
    },
    status_history: history.map((h) => ({ status: h.status, at: formatDate(h.at), by: h.by, reason: h.reason })),
  };
}
