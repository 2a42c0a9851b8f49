import { formatDate } from '../../../contract/dates.js';

// spec: Conventions, Dates — clients read the offset of the service's dates and assume none. The
// listener prints its times in the offset the event itself carries (`-03:00` for America/Asuncion),
// so that its lines read beside the events' and orders' own dates, not in this machine's zone.

const OFFSET = /(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * The instant `iso` written in the offset of `reference` (a date-time of the API, such as the event's
 * `created_at`); in the service's zone when `reference` has none (a request refused before its
 * event could be read).
 *
 * @example
 * inOffsetOf('2026-11-22T10:01:08.502Z', '2026-11-22T07:00:00.000-03:00') // → '2026-11-22T07:01:08.502-03:00'
 */
export function inOffsetOf(iso: string, reference: unknown): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const m = typeof reference === 'string' ? OFFSET.exec(reference) : null;
  if (!m) return formatDate(ms);
  if (m[1] === 'Z') return new Date(ms).toISOString();
  const minutes = (m[1].startsWith('-') ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  return `${new Date(ms + minutes * 60_000).toISOString().slice(0, 23)}${m[1]}`;
}
