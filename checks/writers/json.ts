import { createHash } from 'node:crypto';
import type { HomologationReport } from '../report.js';

/** The exact text of `homologation.json` (the certificate quotes the SHA-256 of these bytes). */
export function jsonReport(report: HomologationReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
