/** spec: Order rule 2 — exact arithmetic on integer hundredths (never floats). */

export interface PricedOption {
  unitPrice: number;
  quantity: number;
}

export interface PricedLine {
  unitPrice: number;
  quantity: number;
  options: PricedOption[];
}

export interface Totals {
  subtotal: number;
  deliveryFee: number;
  discount: number;
  total: number;
}

function assertCents(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative integer of hundredths: ${n}`);
}

/**
 * A computed amount past 2^53 − 1 hundredths, where a number is no longer exact (issue 24: price
 * 1e12 × 91 answered 500): bad input, which the caller answers 422 on the field that caused it.
 * `part`: a line's total, or the order's (subtotal, total).
 */
export class AmountTooLarge extends RangeError {
  constructor(readonly part: 'line' | 'order') {
    super(`the ${part}'s amount passes ${Number.MAX_SAFE_INTEGER} hundredths`);
  }
}

/** `n` when exact; every term is non-negative, so a sum that ever passed the bound ends past it too. */
function exact(n: number, part: 'line' | 'order'): number {
  if (!Number.isSafeInteger(n)) throw new AmountTooLarge(part);
  return n;
}

/** `line_total = (unit_price + Σ option.unit_price × option.quantity) × quantity` */
export function lineTotal(line: PricedLine): number {
  assertCents(line.unitPrice, 'unit_price');
  const perUnit = line.options.reduce((sum, o) => {
    assertCents(o.unitPrice, 'option unit_price');
    return sum + o.unitPrice * o.quantity;
  }, line.unitPrice);
  return exact(perUnit * line.quantity, 'line');
}

/** `total = subtotal + delivery_fee − discount`, with `subtotal = Σ line_total`. */
export function orderTotals(lines: PricedLine[], deliveryFee: number, discount: number): Totals {
  assertCents(deliveryFee, 'delivery_fee');
  assertCents(discount, 'discount');
  const subtotal = exact(lines.reduce((sum, l) => sum + lineTotal(l), 0), 'order');
  const total = exact(subtotal + deliveryFee - discount, 'order');
  if (total < 0) throw new RangeError('discount larger than subtotal plus delivery fee');
  return { subtotal, deliveryFee, discount, total };
}
