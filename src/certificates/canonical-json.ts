import { createHash } from 'node:crypto';

/**
 * JSON in RFC 8785's canonical form (JCS): object members sorted by their names' UTF-16 code units,
 * no white space, strings and numbers as ECMAScript's JSON.stringify writes them. Two programs that
 * read the same JSON text write the same canonical text, whatever order or spacing they were given,
 * so a digest of it names the data rather than its formatting. `undefined` members are left out (as
 * JSON.stringify does); a number that JSON cannot hold is refused.
 *
 * @example canonicalJson({ b: 1, a: [true, null] }) === '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonicalJson: a number JSON cannot hold (NaN or Infinity)');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    // The default sort compares UTF-16 code units, which is RFC 8785's order.
    const names = Object.keys(object).filter((k) => object[k] !== undefined).sort();
    return `{${names.map((k) => `${JSON.stringify(k)}:${canonicalJson(object[k])}`).join(',')}}`;
  }
  throw new TypeError(`canonicalJson: ${typeof value} is not JSON`);
}

/**
 * The hex SHA-256 a certificate's `report_sha256` holds: of the report's canonical JSON
 * (canonicalJson) without its `certificate` member. A report read back from `homologation.json`,
 * from `GET /_emulator/homologation/{integration_id}` or re-indented by any tool digests the same;
 * a report with one value changed does not.
 *
 * @example reportSha256(JSON.parse(readFileSync('homologation-report/homologation.json', 'utf8')))
 */
export function reportSha256(report: unknown): string {
  if (report === null || typeof report !== 'object' || Array.isArray(report)) throw new TypeError('reportSha256: a report is a JSON object');
  const { certificate: _certificate, ...rest } = report as Record<string, unknown>;
  return createHash('sha256').update(canonicalJson(rest), 'utf8').digest('hex');
}
