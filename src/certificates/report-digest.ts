import { createHash } from 'node:crypto';
import { canonicalJson } from '../contract/canonical-json.js';

/**
 * The hex SHA-256 a certificate's `report_sha256` holds: of the report's JSON without its
 * `certificate` member, in RFC 8785's canonical form (JCS: members sorted by the UTF-16 code units of
 * their names, no white space, strings and numbers as ECMAScript's JSON.stringify writes them). It is
 * read as JSON first, so that a report built in memory digests as the text a verifier reads from
 * `homologation.json`: a member whose value is `undefined` is not there. A report re-indented by any
 * tool digests the same; a report with one value changed does not.
 *
 * @example reportSha256(JSON.parse(readFileSync('homologation-report/homologation.json', 'utf8')))
 */
export function reportSha256(report: unknown): string {
  if (report === null || typeof report !== 'object' || Array.isArray(report)) throw new TypeError('reportSha256: a report is a JSON object');
  const { certificate: _certificate, ...rest } = report as Record<string, unknown>;
  const json = JSON.parse(JSON.stringify(rest)) as unknown;
  return createHash('sha256').update(canonicalJson(json), 'utf8').digest('hex');
}
