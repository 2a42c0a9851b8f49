import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backArrows, describe as show, folderCycles, importGraph, layerOf, sourceFiles, type Edge } from './imports.js';
import { COMPOSITION_ROOT, LAYERS, SCANNED } from './layers.js';

// The emulator's tree shows its layers (issue 22): read from the import statements of emulator/,
// src/ and checks/ (test/architecture/imports.ts), with the layers of test/architecture/layers.ts.

/**
 * The imports that still run from a lower layer up to a higher one (a ratchet: lower it when one
 * goes, never raise it but for a new aggregate's repository). All are type-only: the port names each
 * aggregate's repository interface and the admission's records (store/port.ts ×7: the five, the access
 * requests and the certificates' ledger; store/emit.ts), the port's admin names the bundle's payload (store/admin.ts),
 * and the route kit's caller is made of the stores aggregate's records (http/auth.ts).
 */
const MAX_BACK_ARROWS = 10;

const ROOT = join(import.meta.dirname, '../..');
const edges = importGraph(ROOT, SCANNED);
const local = edges.filter((e) => e.local);
const list = (found: Edge[]) => found.map(show).join('\n');

describe('the layers of the emulator', () => {
  it('reads every module and resolves every relative import to a file of the repo', () => {
    const files = new Set(sourceFiles(ROOT, SCANNED));
    // A scanner that matched nothing would pass every rule below.
    expect(files.size).toBeGreaterThan(400);
    expect(local.length).toBeGreaterThan(1500);
    const unresolved = local.filter((e) => !files.has(e.to) && !e.to.endsWith('.json'));
    expect(list(unresolved)).toBe('');
  });

  it('gives every module of emulator/, src/ and checks/ a layer', () => {
    const unplaced = sourceFiles(ROOT, SCANNED).filter((f) => layerOf(LAYERS, f) === undefined);
    expect(unplaced).toEqual([]);
  });

  it('imports a database driver only in emulator/adapters/', () => {
    const drivers = edges.filter((e) => !e.local && (e.to === 'better-sqlite3' || e.to === 'pg') && !e.from.startsWith('emulator/adapters/'));
    expect(list(drivers)).toBe('');
    // The rule is about something: the adapters do import them.
    expect(edges.some((e) => e.to === 'better-sqlite3' && !e.typeOnly)).toBe(true);
    expect(edges.some((e) => e.to === 'pg' && !e.typeOnly)).toBe(true);
  });

  it('imports an adapter only from the composition root (emulator/open.ts, emulator/data-folder.ts)', () => {
    const reached = local.filter((e) => e.to.startsWith('emulator/adapters/') && !e.from.startsWith('emulator/adapters/') && !COMPOSITION_ROOT.includes(e.from));
    expect(list(reached)).toBe('');
  });

  it('has no loop of runtime imports across the top-level folders of emulator/', () => {
    const cycles = folderCycles(edges).map((c) => `${c.folders.join(', ')}:\n${list(c.arrows)}`);
    expect(cycles.join('\n\n')).toBe('');
  });

  it(`has at most ${MAX_BACK_ARROWS} imports from a lower layer up to a higher one, none at run time`, () => {
    const back = backArrows(LAYERS, edges);
    expect(list(back.filter((e) => !e.typeOnly))).toBe('');
    expect(back.length, list(back)).toBeLessThanOrEqual(MAX_BACK_ARROWS);
  });
});

describe('the import scanner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('emulator/store/port.ts', "import type { OrderRecord } from '../orders/repository.js';\nexport type X = OrderRecord;\n");
  write('emulator/orders/repository.ts', "import { db } from '../adapters/sqlite/index.js';\nexport interface OrderRecord { id: string }\n");
  write('emulator/orders/commands.ts', "import {\n  type A,\n  type B,\n} from '../http/route.js';\nimport { go } from '../http/route.js';\n");
  write('emulator/http/route.ts', "// import { nothing } from '../orders/commands.js' is a comment\nimport Database from 'better-sqlite3';\nexport const go = () => import('../orders/commands.js');\n");
  write('emulator/adapters/sqlite/index.ts', "export const db = 1;\n");
  const fixture = importGraph(dir, ['emulator']);

  it('tells type-only imports (import type, every name marked type) from runtime ones', () => {
    expect(fixture.filter((e) => e.from === 'emulator/orders/commands.ts').map((e) => e.typeOnly)).toEqual([true, false]);
    expect(fixture.find((e) => e.from === 'emulator/store/port.ts')).toMatchObject({ to: 'emulator/orders/repository.ts', typeOnly: true });
  });

  it('counts a dynamic import and a package import, and not a commented one', () => {
    expect(fixture.filter((e) => e.from === 'emulator/http/route.ts').map((e) => [e.to, e.local])).toEqual([
      ['better-sqlite3', false],
      ['emulator/orders/commands.ts', true],
    ]);
  });

  it('finds the back-arrows and the loops of folders', () => {
    const layers = [
      { name: 'kernel', paths: ['emulator/store/'] },
      { name: 'kit', paths: ['emulator/http/'] },
      { name: 'aggregates', paths: ['emulator/orders/'] },
      { name: 'adapters', paths: ['emulator/adapters/'] },
    ];
    expect(backArrows(layers, fixture).map(show).sort()).toEqual([
      'emulator/http/route.ts → emulator/orders/commands.ts',
      'emulator/orders/repository.ts → emulator/adapters/sqlite/index.ts',
      'emulator/store/port.ts → emulator/orders/repository.ts (type)',
    ]);
    expect(folderCycles(fixture).map((c) => c.folders)).toEqual([['http', 'orders']]);
  });
});
