// The package's declarations: `rollup -c rollup.types.config.mjs`, the last step of `npm run build`,
// after TypeScript 7's `tsc -p tsconfig.build.json` wrote one .d.ts per module into dist/.types (removed at the end).
//
// It bundles them per public entry (`merchant-kit`, `/emulator`, `/checks`), one build written
// twice: `.d.ts` for `import` and `.d.cts` for `require` (TypeScript reads a `.d.ts` of a "type":
// "module" package as ESM, which a CommonJS consumer cannot `require`). Only what an entry exports, and what that needs,
// is kept: a client-only import type-checks no emulator code.
//
// zod's declarations are copied in, the part that is used: importing `zod` would make a consumer's
// `tsc` load all of zod's, whose locale files default-import CommonJS modules and fail under
// TypeScript's defaults (`esModuleInterop` off) unless `skipLibCheck` is on.
import { rmSync } from 'node:fs';
import { dts } from 'rollup-plugin-dts';

const DECLARATIONS = 'dist/.types';
const ENTRIES = ['src/index', 'emulator/index', 'checks/index'];

/** Bare imports that stay imports; zod (and anything relative) is bundled. */
const isExternal = (id) => !(id.startsWith('.') || id.startsWith('/') || id === 'zod' || id.startsWith('zod/'));

/**
 * Drops `#private;` from classes: TypeScript writes it for a class with `#fields`, and a consumer
 * compiling for ES5 (TypeScript's default target) gets TS18028 for it. The fields stay private at
 * run time; the class's type just stops being nominal.
 */
const noPrivateMarker = {
  name: 'no-private-marker',
  renderChunk: (code) => ({ code: code.replace(/^[ \t]*#private;\r?\n/gm, ''), map: null }),
};

/** Fails the build on any warning: an unresolved import or a type an entry cannot reach is a bug. */
function onwarn(warning) {
  throw new Error(`types bundle: ${warning.message}`);
}

/** One output per extension: the two differ only in their files' names. */
const output = (ext) => ({
  dir: 'dist',
  format: 'es',
  entryFileNames: `[name].${ext}`,
  chunkFileNames: `types/[hash].${ext}`,
  // The declarations name Node's types (Buffer, streams): load them even where `types` lists none.
  banner: '/// <reference types="node" />',
});

/** Removes the per-module declarations once both outputs are written: dist/ holds what ships. */
const removeDeclarations = { name: 'remove-declarations', closeBundle: () => rmSync(DECLARATIONS, { recursive: true, force: true }) };

// One build, two outputs (issue 27): the declarations are read and transformed once, then written
// as `.d.ts` and as `.d.cts` (two builds of the same input took twice the CPU for the same result).
export default {
  input: Object.fromEntries(ENTRIES.map((name) => [name, `${DECLARATIONS}/${name}.d.ts`])),
  external: isExternal,
  plugins: [dts({ respectExternal: true }), noPrivateMarker, removeDeclarations],
  onwarn,
  output: [output('d.ts'), output('d.cts')],
};
