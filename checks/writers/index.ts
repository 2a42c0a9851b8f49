import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HomologationReport } from '../report.js';
import { htmlReport } from './html.js';
import { jsonReport, sha256Hex } from './json.js';
import { junitReport } from './junit.js';
import { markdownReport } from './markdown.js';

/** DESIGN: Homologation — the report files in `--report-dir`. */
export const REPORT_FILES = {
  json: 'homologation.json',
  junit: 'homologation.junit.xml',
  html: 'homologation.html',
  md: 'homologation.md',
} as const;

export type FileFormat = keyof typeof REPORT_FILES;
export const REPORT_FORMATS = ['terminal', 'json', 'junit', 'html', 'md'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Written to a temporary name and renamed: a reader never sees half a report. */
async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, 'utf8');
  await rename(tmp, path);
}

/**
 * @example
 * await writeReports(report, 'homologation-report', ['json', 'junit', 'html', 'md']);
 *
 * Writes the file formats asked for; returns the paths written. The HTML certificate quotes the
 * SHA-256 of the JSON text, which is computed even when the JSON file is not asked for.
 */
export async function writeReports(report: HomologationReport, dir: string, formats: readonly ReportFormat[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const json = jsonReport(report);
  const texts: Record<FileFormat, () => string> = {
    json: () => json,
    junit: () => junitReport(report),
    html: () => htmlReport(report, sha256Hex(json)),
    md: () => markdownReport(report),
  };
  const written: string[] = [];
  for (const format of Object.keys(REPORT_FILES) as FileFormat[]) {
    if (!formats.includes(format)) continue;
    const path = join(dir, REPORT_FILES[format]);
    await writeAtomic(path, texts[format]());
    written.push(path);
  }
  return written;
}
