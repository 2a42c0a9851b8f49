/**
 * Paraguay's RUC check digit (SET, "módulo 11"): digits from the right weighted 2, 3, … 11 (then
 * back to 2), summed; remainder r of the sum by 11; the digit is 11 − r when r > 1, else 0.
 */
export function rucCheckDigit(base: string): number {
  if (!/^[0-9]{1,12}$/.test(base)) throw new RangeError(`not a RUC base: ${base}`);
  let total = 0;
  let weight = 2;
  for (let i = base.length - 1; i >= 0; i--) {
    if (weight > 11) weight = 2;
    total += Number(base[i]) * weight;
    weight++;
  }
  const remainder = total % 11;
  return remainder > 1 ? 11 - remainder : 0;
}

/** `80000519-8`: base, dash, check digit. */
export function formatRuc(base: string): string {
  return `${base}-${rucCheckDigit(base)}`;
}

export function isValidRuc(ruc: string): boolean {
  const m = /^([0-9]{1,12})-([0-9])$/.exec(ruc);
  return m !== null && rucCheckDigit(m[1]) === Number(m[2]);
}
