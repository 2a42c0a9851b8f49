import { z } from 'zod';
import { AMOUNT_PATTERN, BOUNDED_AMOUNT_PATTERN, MAX_AMOUNT_CENTS, parseAmount } from './amounts.js';
import { DATETIME_PATTERN, parseDate } from './dates.js';
import { ID_PREFIXES, type IdKind } from './ids.js';
import { EXTERNAL_ID_PATTERN, LIMITS } from './limits.js';
import { escapeRegExp } from './regexp.js';

// spec: Conventions, External codes — case-sensitive, 1 to 64 of A-Z a-z 0-9 . _ : -
export const externalId = z.string().regex(EXTERNAL_ID_PATTERN).meta({
  description: 'Código del sistema externo: 1 a 64 caracteres de A-Z a-z 0-9 . _ : -',
  example: 'SKU-100',
});

// spec: Conventions, Amounts — decimal text, at most 2 decimals, never a number.
export const amount = z
  .string()
  .regex(AMOUNT_PATTERN)
  .refine((v) => !AMOUNT_PATTERN.test(v) || safeAmount(v), { message: 'too_large' })
  // The document shows the bounded pattern: the same format plus the refine's upper bound.
  .meta({
    pattern: BOUNDED_AMOUNT_PATTERN.source,
    description: 'Monto en texto decimal (PYG), hasta 2 decimales, como máximo 1000000000000',
    example: '15000.50',
  });

function safeAmount(v: string): boolean {
  try {
    return parseAmount(v) <= MAX_AMOUNT_CENTS;
  } catch {
    return false;
  }
}

/** An amount as the service writes it. */
export const amountOut = z.string().meta({ example: '15000' });

// spec: Conventions, Dates — ISO 8601 with an explicit offset.
export const datetime = z
  .string()
  .regex(DATETIME_PATTERN)
  .refine((v) => !DATETIME_PATTERN.test(v) || !Number.isNaN(parseDate(v)), { message: 'invalid_date' })
  // `format: date-time` (RFC 3339) adds what a pattern cannot say (the days of each month); it also
  // asks for seconds, which the emulator does not: the document is the stricter one there.
  .meta({ format: 'date-time', description: 'Fecha y hora ISO 8601 con desplazamiento explícito', example: '2026-11-22T10:30:00-03:00' });

export const datetimeOut = z.string().meta({ example: '2026-11-22T10:30:00.000-03:00' });

export const id = (kind: IdKind) =>
  z.string().regex(new RegExp(`^${ID_PREFIXES[kind]}[0-9A-HJKMNP-TV-Z]{26}$`)).meta({ example: `${ID_PREFIXES[kind]}01JD0000000000000000000000` });

// spec: Limits, numeric bounds — position 0 to 100000
export const position = z.int().min(LIMITS.bounds.position[0]).max(LIMITS.bounds.position[1]);

/** Query booleans arrive as text. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

// `0` is a number too: `limit=0` fails as too_small ("at least 1"), not as "not a number".
const QUERY_INT = /^(0|[1-9][0-9]*)$/;

/**
 * A whole number in the query string: only plain digits (`5`, never `5.0`, `1e1`, `0x5` or ` 5`), then
 * the bounds. Text that is not plain digits stays text and fails as `invalid_type`. A preprocess (not
 * a pipe from a string) so the OpenAPI document shows the integer and its bounds.
 */
export const queryInt = (min: number, max: number) =>
  z.preprocess(
    // Huge digit strings become the largest safe integer, so that they fail once, as too_big.
    (v) => (typeof v === 'string' && QUERY_INT.test(v) ? Math.min(Number(v), Number.MAX_SAFE_INTEGER) : v),
    z.int().min(min).max(max),
  );

// spec: Conventions, Pagination — limit at most 200
export const pageLimit = queryInt(1, LIMITS.pageSizeMax);

/** Text with at least one character that is not white space (JavaScript's `\s`, which is what `trim` removes). */
export const NON_BLANK = /\S/;

/**
 * spec: Resources — a required text field: not empty and not only spaces (code `required`), at most
 * `max` characters. The text is kept as sent.
 */
export const requiredText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    // The empty text already fails `min(1)` with the same code; this catches text of only spaces.
    .refine((v) => v === '' || NON_BLANK.test(v), { message: 'El campo no puede estar vacío.', params: { code: 'required' } })
    .meta({ pattern: NON_BLANK.source });

/**
 * The pattern of a comma list of `values` in a query string (`pending,accepted`), spaces around each
 * item allowed as the parser trims them: the document's form of a `split(',')` + enum check.
 */
export const commaListPattern = (values: readonly string[]): string => {
  const item = `\\s*(?:${values.map(escapeRegExp).join('|')})\\s*`;
  return `^${item}(?:,${item})*$`;
};

/**
 * A query parameter that lists values of `item` separated by commas (`status=pending,accepted`): the
 * text is split and trimmed, each part must be one of the enum's values, at least one. The document
 * shows it as the text with `commaListPattern`.
 */
export const commaList = <E extends z.ZodEnum<Readonly<Record<string, string>>>>(item: E, example: string) =>
  z
    .string()
    .transform((v) => v.split(',').map((s) => s.trim()))
    .pipe(z.array(item).min(1))
    .meta({ pattern: commaListPattern(item.options), example });

/**
 * spec: Conventions, Pagination — an opaque cursor: never empty (an empty one is answered 400
 * `invalid_cursor`, as any cursor the emulator did not give).
 */
export const cursor = z.string().meta({ minLength: 1, description: 'Cursor opaco: el next_cursor de la página anterior' });

export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: cursor.nullable() });

export const singleEnvelope = <T extends z.ZodType>(item: T) => z.object({ data: item });
