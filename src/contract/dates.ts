// spec: Conventions, Dates — ISO 8601 with an explicit offset; responses in America/Asuncion.
export const TIMEZONE = 'America/Asuncion';

const offsetFormat = new Intl.DateTimeFormat('en-US', { timeZone: TIMEZONE, timeZoneName: 'longOffset' });

function offsetMinutes(ms: number): number {
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

/** ISO 8601 date-time that carries its offset (`Z` or `±hh:mm`). */
export const DATETIME_PATTERN =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch, or NaN when the text is not a date-time with an offset. */
export function parseDate(text: string): number {
  if (!DATETIME_PATTERN.test(text)) return Number.NaN;
  return Date.parse(text);
}
