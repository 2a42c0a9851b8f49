// spec: Conventions, Dates — ISO 8601 with an explicit offset; responses in America/Asuncion.
export const TIMEZONE = 'America/Asuncion';

// Made on first use: the first time-zone format of a process loads ICU's zone data (30-60 ms of CPU),
// which a CLI command that formats no date (`merchant-kit me`) should not pay at start.
let offsetFormat: Intl.DateTimeFormat | undefined;

const HOUR_MS = 3_600_000;
const offsetByHour = new Map<number, number>();

/**
 * Asunción's offset at an instant. `formatToParts` is slow enough to dominate a page of products, and
 * offsets only change on transitions, so the offset is kept per UTC hour whose two ends agree (an hour
 * holding a transition is computed every time).
 */
function offsetMinutes(ms: number): number {
  const hour = Math.floor(ms / HOUR_MS);
  const cached = offsetByHour.get(hour);
  if (cached !== undefined) return cached;
  const start = zoneOffsetMinutes(hour * HOUR_MS);
  if (start !== zoneOffsetMinutes(hour * HOUR_MS + HOUR_MS - 1)) return zoneOffsetMinutes(ms);
  if (offsetByHour.size >= 100_000) offsetByHour.clear();
  offsetByHour.set(hour, start);
  return start;
}

function zoneOffsetMinutes(ms: number): number {
  offsetFormat ??= new Intl.DateTimeFormat('en-US', { timeZone: TIMEZONE, timeZoneName: 'longOffset' });
  const name = offsetFormat.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `2026-11-22T02:31:05.123-03:00`: the instant in Asunción's local time with its offset. */
export function formatDate(ms: number): string {
  const offset = offsetMinutes(ms);
  const local = new Date(ms + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `.${pad(local.getUTCMilliseconds(), 3)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

export function formatNullableDate(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : formatDate(ms);
}

/**
 * ISO 8601 date-time that carries its offset (`Z` or `±hh:mm`), each field in its range (month 01-12,
 * day 01-31, hour 00-23, minutes and seconds 00-59, offset hours 00-23). The OpenAPI document shows
 * this pattern as is, so it must say as much as a pattern can; `parseDate` adds the days of each month.
 */
export const DATETIME_PATTERN =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

const DATETIME_FIELDS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Milliseconds since the epoch, or NaN when the text is not a date-time with an offset. Fields are
 * checked one by one because `Date.parse` rolls impossible dates over (`2026-02-30` → March 2).
 */
export function parseDate(text: string): number {
  if (!DATETIME_PATTERN.test(text)) return Number.NaN;
  const [, y, mo, d, h, mi, s = '0', oh = '0', om = '0'] = DATETIME_FIELDS.exec(text)!;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return Number.NaN;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(oh) > 23 || Number(om) > 59) return Number.NaN;
  return Date.parse(text);
}
