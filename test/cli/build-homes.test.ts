import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuild } from '../helpers/run-build.js';

// One home per module in the CLI's build. tsup.config.ts merges esbuild's chunks into fewer files
// (mergeCore: what every command loads; mergeByCommands: the chunks the same commands load). A module
// bundled into two files that one process can load would run twice in it: two ApiError classes (an
// `instanceof` fails across them), two clocks, two registries. esbuild names each module it bundles in
// a comment above its code (`// emulator/clock.ts`): that is what is read here.

const STATIC_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*["'](\.{1,2}\/[^"']+\.js)["']|(?:^|\n)\s*import\s*["'](\.{1,2}\/[^"']+\.js)["']/g;
// esbuild writes `import("./x.js")`; a type in a bundled module's JSDoc (`{import('./client.js')}`) is not one.
const DYNAMIC_IMPORT = /(?<!\{)import\(\s*"(\.{1,2}\/[^"]+\.js)"\s*\)/g;
// A path into a build (`dist/chunk-….js`, which esbuild writes when it bundles built files again) names no module.
const MODULE = /^\/\/ ((?:node_modules|src|emulator|checks)\/(?!\S*\/dist\/)\S+)$/gm;

/** The files of a CLI build, from its main.js: every file imported, statically or lazily, at any depth. */
function cliFiles(main: string): string[] {
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    if (!existsSync(file)) throw new Error(`${file} is imported but missing from the build`);
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(STATIC_IMPORT)) visit(resolve(dirname(file), m[1] ?? m[2]!));
    for (const m of source.matchAll(DYNAMIC_IMPORT)) visit(resolve(dirname(file), m[1]!));
  };
  visit(resolve(main));
  return [...files];
}

/** Each module that more than one file of the build holds, with those files (relative to main.js's dist/). */
function modulesInTwoFiles(dist: string): Record<string, string[]> {
  const homes = new Map<string, string[]>();
  for (const file of cliFiles(join(dist, 'src', 'cli', 'main.js'))) {
    for (const [, module] of readFileSync(file, 'utf8').matchAll(MODULE)) {
      const at = homes.get(module!) ?? [];
      if (!at.includes(file)) homes.set(module!, [...at, file]);
    }
  }
  return Object.fromEntries([...homes].filter(([, files]) => files.length > 1).map(([module, files]) => [module, files.map((f) => relative(dist, f))]));
}

/** A chain of static imports that comes back to its first file, or null: ESM would run such files in an order of its own. */
function importCycle(main: string): string[] | null {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (file: string, chain: string[]): string[] | null => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'visiting') return [...chain.slice(chain.indexOf(file)), file];
    state.set(file, 'visiting');
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const found = visit(resolve(dirname(file), m[1] ?? m[2]!), [...chain, file]);
      if (found) return found;
    }
    state.set(file, 'done');
    return null;
  };
  for (const file of cliFiles(main)) {
    const found = visit(file, []);
    if (found) return found.map((f) => relative(dirname(dirname(dirname(main))), f));
  }
  return null;
}

/**
 * The code of a built file that no module comment names: what comes before its first one, the
 * imports and exports aside. esbuild's own helpers (`__commonJS`, `__toESM`…) are there, ~3 kB at most;
 * a file bundled again without its comments is all there, and its modules could be anywhere else too.
 */
function unnamedCode(file: string): number {
  const text = readFileSync(file, 'utf8');
  const first = text.search(new RegExp(MODULE.source, 'm'));
  return (first === -1 ? text : text.slice(0, first))
    .replace(/^import [^;]*?;$/gms, '')
    .replace(/^export \{[^}]*\};$/gm, '')
    .replace(/^\s*$/gm, '')
    .trim().length;
}

describe('the CLI build', () => {
  let dist: string;
  beforeAll(async () => {
    dist = join(await runBuild(), 'dist');
  });

  it('holds each bundled module in exactly one file, so no process runs a module twice', () => {
    expect(modulesInTwoFiles(dist)).toEqual({});
    // The check reads the modules' comments: the build still writes them (zod's, the emulator's clock).
    const files = cliFiles(join(dist, 'src', 'cli', 'main.js'));
    const modules = files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(MODULE)].map((m) => m[1]));
    expect(modules).toEqual(expect.arrayContaining(['emulator/clock.ts', 'src/contract/errors.ts', 'node_modules/zod/v4/core/core.js', 'src/cli/commands/emulator/start.ts']));
    // …for every module of every file: no file holds code that they do not name.
    const unnamed = Object.fromEntries(files.map((file) => [relative(dist, file), unnamedCode(file)]).filter(([, size]) => Number(size) > 8192));
    expect(unnamed).toEqual({});
  });

  it('has no two files that import each other, directly or through others', () => {
    expect(importCycle(join(dist, 'src', 'cli', 'main.js'))).toBeNull();
  });

  describe('the check', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'merchant-kit-homes-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** A fabricated build named `name`: its files by path (`src/cli/main.js` among them). */
    const fabricate = (name: string, files: Record<string, string>) => {
      const build = join(dir, name);
      mkdirSync(join(build, 'src', 'cli'), { recursive: true });
      for (const [path, text] of Object.entries(files)) writeFileSync(join(build, path), text);
      return build;
    };

    it('finds a module merged into the file that imports it while a lazily imported file keeps its own copy', () => {
      // The unsafe merge: start.js carries the clock's chunk, which sqlite.js (loaded later by the same
      // process) still imports.
      const build = fabricate('naive', {
        'src/cli/main.js': 'const start = () => import("../../start.js");\n',
        'start.js': '// emulator/clock.ts\nvar clock = {};\n// src/cli/commands/emulator/start.ts\nconst sqlite = () => import("./sqlite.js");\n',
        'sqlite.js': 'import {\n  clock\n} from "./chunk-CLOCK.js";\n// emulator/adapters/sqlite/index.ts\nvar x = clock;\n',
        'chunk-CLOCK.js': '// emulator/clock.ts\nvar clock = {};\nexport {\n  clock\n};\n',
      });
      expect(modulesInTwoFiles(build)).toEqual({ 'emulator/clock.ts': ['start.js', 'chunk-CLOCK.js'] });
    });

    it('finds code that no module comment names (a file bundled again by esbuild loses them)', () => {
      const file = join(dir, 'rebundled.js');
      writeFileSync(file, `import {\n  clock\n} from "./chunk-CLOCK.js";\n// dist/chunk-ABC.js\n${'var x = 1;\n'.repeat(1000)}// src/cli/main.ts\nvar y = 2;\n`);
      expect(unnamedCode(file)).toBeGreaterThan(8192);
      writeFileSync(file, `import {\n  clock\n} from "./chunk-CLOCK.js";\n// emulator/clock.ts\n${'var x = 1;\n'.repeat(1000)}export {\n  x\n};\n`);
      expect(unnamedCode(file)).toBe(0);
    });

    it('finds two files that import each other through a third', () => {
      const build = fabricate('cycle', {
        'src/cli/main.js': 'import "../../a.js";\n',
        'a.js': 'import {\n  b\n} from "./b.js";\n',
        'b.js': 'import "./c.js";\nexport {\n  b\n};\n',
        'c.js': 'import "./a.js";\n',
      });
      expect(importCycle(join(build, 'src', 'cli', 'main.js'))).toEqual(['a.js', 'b.js', 'c.js', 'a.js']);
    });

    it('fails on a file that is imported but missing', () => {
      const build = fabricate('missing', { 'src/cli/main.js': 'import "../../cli-core.js";\n' });
      expect(() => modulesInTwoFiles(build)).toThrow(/cli-core\.js is imported but missing/);
    });
  });
});
