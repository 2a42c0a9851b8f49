import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { buildOpenApiDocument } from '../../../contract/openapi.js';
import type { OpenApiOptions } from './index.js';

/** Writes the document, indented, to `--out` or stdout; returns where it went. */
export async function openApiAction(options: OpenApiOptions): Promise<{ out: string | null }> {
  const text = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
  if (!options.out) {
    process.stdout.write(text);
    return { out: null };
  }
  const out = resolve(options.out);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, text, 'utf8');
  process.stderr.write(`OpenAPI document written to ${options.out}\n`);
  return { out };
}
