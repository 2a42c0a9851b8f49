import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

// docs/client.md: the quick start runs as written (imports pointed at the sources instead of the package).
const doc = readFileSync(resolve('docs/client.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'mk-client-doc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function quickStart(): string {
  const section = doc.slice(doc.indexOf('## Quick start'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('no ts block in the quick start');
  return match[1]!
    .replace("from 'merchant-kit/emulator'", `from '${pathToFileURL(resolve('emulator/index.ts')).href}'`)
    .replace("from 'merchant-kit'", `from '${pathToFileURL(resolve('src/index.ts')).href}'`);
}

describe('docs/client.md', () => {
  it('quick start imports two orders, prints their events and the 404 error line', async () => {
    const file = join(dir, 'example.ts');
    writeFileSync(file, quickStart());
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    try {
      await import(pathToFileURL(file).href);
    } finally {
      log.mockRestore();
    }
    expect(lines[0]).toMatch(/^connected to store str_\w+ in test$/);
    expect(lines.filter((l) => l.startsWith('imported '))).toHaveLength(2);
    expect(lines.filter((l) => /^order.status_changed evt_\w+$/.test(l))).toHaveLength(2);
    expect(lines.at(-1)).toMatch(/^404 not_found: El pedido no existe\. \(req_\w+\)$/);
  });
});
