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

/** `line_total = (unit_price + Σ option.unit_price × option.quantity) × quantity` */
export function lineTotal(line: PricedLine): number {
  assertCents(line.unitPrice, 'unit_price');
  const perUnit = line.options.reduce((sum, o) => {
    assertCents(o.unitPrice, 'option unit_price');
    return sum + o.unitPrice * o.quantity;
  }, line.unitPrice);
  const total = perUnit * line.quantity;
  assertCents(total, 'line_total');
  return total;
}

/** `total = subtotal + delivery_fee − discount`, with `subtotal = Σ line_total`. */
export function orderTotals(lines: PricedLine[], deliveryFee: number, discount: number): Totals {
  assertCents(deliveryFee, 'delivery_fee');
  assertCents(discount, 'discount');
  const subtotal = lines.reduce((sum, l) => sum + lineTotal(l), 0);
  const total = subtotal + deliveryFee - discount;
  if (total < 0) throw new RangeError('discount larger than subtotal plus delivery fee');
  return { subtotal, deliveryFee, discount, total };
}
