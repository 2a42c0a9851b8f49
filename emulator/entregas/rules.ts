import type { EntregaAction, EntregaStatus } from '../../src/contract/entregas.js';

// The states and transitions of independent deliveries (the spec leaves them open; docs/entregas.md).
//
//   requested ──pickup──▶ picked_up ──(courier enters the customer's code)──▶ delivered
//       │  ▲                  │
//       │  └─raise_fee        └──returned──▶ returned
//       └──cancel──▶ cancelled
export const ENTREGA_TRANSITIONS: Record<EntregaAction | 'deliver', { from: EntregaStatus[]; to: EntregaStatus }> = {
  pickup: { from: ['requested'], to: 'picked_up' },
  raise_fee: { from: ['requested'], to: 'requested' },
  cancel: { from: ['requested'], to: 'cancelled' },
  returned: { from: ['picked_up'], to: 'returned' },
  deliver: { from: ['picked_up'], to: 'delivered' },
};


/** The state an action leads to from `current`, or null when the action is not allowed there. */
export function entregaTransition(current: EntregaStatus, action: EntregaAction | 'deliver'): EntregaStatus | null {
  const t = ENTREGA_TRANSITIONS[action];
  return t.from.includes(current) ? t.to : null;
}

export type EntregaPayment = 'cash' | 'bank_transfer' | 'card_on_delivery' | 'qr' | 'prepaid';

/** Only cash passes through the courier's hands; a card on delivery goes to the merchant's terminal. */
export const courierCollects = (payment: EntregaPayment) => payment === 'cash';

/** The customer already paid the merchant: a return needs the merchant's confirmation of the refund. */
export const refundApplies = (payment: EntregaPayment) => payment === 'bank_transfer' || payment === 'qr' || payment === 'prepaid';

export interface BalanceInput {
  status: EntregaStatus;
  paymentMethod: EntregaPayment;
  customerTotal: number;
  courierFee: number;
  returnFee: number | null;
}

/**
 * spec: Independent delivery — positive `balance` is money the courier declares handing to the
 * merchant, negative money the merchant hands to the courier. The courier collects the customer's
 * total only in cash and keeps the courier fee; a cancellation before pickup moves no money; a
 * return means nothing was collected and the merchant owes the fee plus any return fee.
 * `customer_fee` plays no part: it is what the customer was charged, independent of the courier's fee.
 */
export function entregaBalance(e: BalanceInput): number {
  if (e.status === 'cancelled') return 0;
  if (e.status === 'returned') return -(e.courierFee + (e.returnFee ?? 0));
  return (courierCollects(e.paymentMethod) ? e.customerTotal : 0) - e.courierFee;
}

/** Whole guaraníes from the orders' hundredths, rounding a fraction up (the courier never gets less). */
export const toGuaranies = (cents: number) => Math.ceil(cents / 100);

/** DESIGN: an accepted delivery-type order has a delivery quote from its acceptance. */
export const MIN_COURIER_QUOTE = 10_000;
export function courierQuote(deliveryFeeCents: number): number {
  return Math.max(MIN_COURIER_QUOTE, toGuaranies(deliveryFeeCents));
}

/** Order states where the goods are not yet with a courier. */
export const ORDER_STATES_FOR_ENTREGA = ['accepted', 'preparing', 'ready'] as const;
