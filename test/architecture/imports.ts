import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * The import graph of the toolkit's own TypeScript, read from the text with regular expressions (no
 * parser): what test/architecture/layers.test.ts measures the layers with. A statement counts where it
 * starts a line (`import …`, `export … from`), a dynamic `import('…')` anywhere but after `typeof`.
 */

/** One import of one module: `to` is a repo-relative `.ts` path for a relative specifier, else the package name. */
export interface Edge {
  from: string;
  to: string;
  /**
   * `import type`, `export type`, every named import marked `type`, or `typeof import(…)`: gone from the
   * JavaScript, so no part of a cycle at run time. (An unmarked import used only as a type is elided
   * too; it counts as a runtime import here, so mark it `type`.)
   */
  typeOnly: boolean;
  /** A relative specifier (a module of the repo), not a package. */
  local: boolean;
}

const STATEMENT = /^[ \t]*(import|export)\s+(type\s+)?([^;'"]*?)\s*from\s*['"]([^'"]+)['"]/gm;
const BARE = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /(typeof\s+)?\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every `.ts` file under the folders given (repo-relative, `/`-separated), declarations excluded. */
export function sourceFiles(root: string, folders: string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(path);
      return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
    });
  return folders.filter((f) => existsSync(join(root, f))).flatMap(walk).sort();
}

/** The imports of one file. */
export function importsOf(root: string, file: string): Edge[] {
  const text = readFileSync(join(root, file), 'utf8');
  const edges: Edge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const local = specifier.startsWith('.');
    edges.push({ from: file, to: local ? resolveLocal(root, file, specifier) : packageName(specifier), typeOnly, local });
  };
  for (const m of text.matchAll(STATEMENT)) {
    const clause = m[3] ?? '';
    add(m[4]!, Boolean(m[2]) || everyNameIsType(clause));
  }
  for (const m of text.matchAll(BARE)) add(m[1]!, false);
  for (const m of text.matchAll(DYNAMIC)) add(m[2]!, Boolean(m[1]));
  return edges;
}

/** `{ type A, type B }` (and nothing else) imports no value. */
function everyNameIsType(clause: string): boolean {
  const braces = /^\{([\s\S]*)\}$/.exec(clause.trim());
  if (!braces) return false;
  const names = braces[1]!.split(',').map((n) => n.trim()).filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** `./x.js` from `emulator/a/b.ts` → `emulator/a/x.ts` (or `x/index.ts`). */
function resolveLocal(root: string, from: string, specifier: string): string {
  const base = join(dirname(from), specifier).split(sep).join('/');
  const candidates = [base.replace(/\.(m?js)$/, '.ts'), base, `${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => existsSync(join(root, c))) ?? base;
}

/** The graph of the given folders: every file's imports. */
export function importGraph(root: string, folders: string[]): Edge[] {
  return sourceFiles(root, folders).flatMap((file) => importsOf(root, file));
}

/** One layer: the modules whose path starts with one of `paths` (a folder ending in `/`, or a file). */
export interface Layer {
  name: string;
  paths: string[];
}

/** The layer of a module (the longest matching path wins), or undefined when none claims it. */
export function layerOf(layers: Layer[], module: string): number | undefined {
  let best: { rank: number; length: number } | undefined;
  layers.forEach((layer, rank) => {
    for (const p of layer.paths) {
      const hit = p.endsWith('/') ? module.startsWith(p) : module === p;
      if (hit && (!best || p.length > best.length)) best = { rank, length: p.length };
    }
  });
  return best?.rank;
}

/** The imports that run from a lower layer up to a higher one. */
export function backArrows(layers: Layer[], edges: Edge[]): Edge[] {
  return edges.filter((e) => {
    if (!e.local) return false;
    const from = layerOf(layers, e.from);
    const to = layerOf(layers, e.to);
    return from !== undefined && to !== undefined && to > from;
  });
}

/** `emulator/orders/x.ts` → `orders`; a file at emulator's root is its own name (`app.ts`). */
export function emulatorFolder(module: string): string | undefined {
  if (!module.startsWith('emulator/')) return undefined;
  return module.slice('emulator/'.length).split('/')[0];
}

/**
 * The cycles of runtime imports between emulator's top-level folders (and root files): the strongly
 * connected components of more than one folder, each sorted, with one runtime import per arrow that
 * ties it (what to look at to break it).
 */
export function folderCycles(edges: Edge[]): { folders: string[]; arrows: Edge[] }[] {
  const graph = new Map<string, Set<string>>();
  const runtime = edges.filter((e) => e.local && !e.typeOnly);
  for (const e of runtime) {
    const a = emulatorFolder(e.from);
    const b = emulatorFolder(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    graph.get(a)!.add(b);
  }
  return stronglyConnected(graph)
    .filter((c) => c.length > 1)
    .map((folders) => {
      const inside = new Set(folders);
      const arrows = runtime.filter((e) => {
        const a = emulatorFolder(e.from);
        const b = emulatorFolder(e.to);
        return a !== b && inside.has(a!) && inside.has(b!);
      });
      return { folders: folders.sort(), arrows };
    });
}

/** Tarjan's algorithm. */
function stronglyConnected(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) visit(v);
  return components;
}

/** `a.ts → b.ts`, for a failure's message. */
export function describe(edge: Edge): string {
  return `${edge.from} → ${edge.to}${edge.typeOnly ? ' (type)' : ''}`;
}

/** Repo-relative, for messages. */
export function repoPath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/');
}
