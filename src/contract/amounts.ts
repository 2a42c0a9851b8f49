// spec: Conventions, Amounts — decimal text with a dot, up to 2 decimals, never floats.
export const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$/;

/** Largest amount we accept, in hundredths: keeps every sum inside Number.MAX_SAFE_INTEGER. */
export const MAX_AMOUNT_CENTS = 1_000_000_000_000_00;

/**
 * `AMOUNT_PATTERN` with the upper bound, for the OpenAPI document (JSON Schema has no maximum for
 * text): up to 12 whole digits, or the maximum itself with zero decimals. Valid while the maximum
 * is a whole power of ten, which `test/contract/openapi-strict.test.ts` checks against `parseAmount`.
 */
export const BOUNDED_AMOUNT_PATTERN = new RegExp(
  `^(?:(?:0|[1-9][0-9]{0,${String(MAX_AMOUNT_CENTS / 100).length - 2}})(\\.[0-9]{1,2})?|${MAX_AMOUNT_CENTS / 100}(\\.0{1,2})?)$`,
);

/** Parses `"15000.5"` to 1500050 hundredths; throws on anything but the spec's format. */
export function parseAmount(text: string): number {
  const match = AMOUNT_PATTERN.exec(text);
  if (!match) throw new RangeError(`not an amount: ${text}`);
  const whole = match[1];
  const fraction = (match[2] ?? '.').slice(1).padEnd(2, '0');
  const cents = Number(whole) * 100 + Number(fraction);
  if (!Number.isSafeInteger(cents) || cents > MAX_AMOUNT_CENTS) throw new RangeError(`amount too large: ${text}`);
  return cents;
}

/** Formats hundredths: `"15000"` for whole amounts, `"15000.50"` otherwise. */
export function formatAmount(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not an integer amount: ${cents}`);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const fraction = abs % 100;
  return fraction === 0 ? `${sign}${whole}` : `${sign}${whole}.${String(fraction).padStart(2, '0')}`;
}
