import { rmSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

// The JavaScript of the package (declarations come after: `rollup -c rollup.types.config.mjs`).
// ESM for everything, the CLI included; CommonJS as well for the three library entries, so that
// `require('merchant-kit')` works on every Node the package supports (Node 20.18 has no
// `require(esm)` without a flag). No source maps: they are not shipped.

const library = {
  'src/index': 'src/index.ts',
  'emulator/index': 'emulator/index.ts',
  'checks/index': 'checks/index.ts',
};

const common: Options = {
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  splitting: true,
  sourcemap: false,
  dts: false,
  // `npm run build` stays quiet: errors only, no listing of every chunk.
  silent: true,
};

export default defineConfig((flags) => {
  // The two builds run at once into dist/, so neither may clean it (one would delete what the other
  // wrote): it is emptied once, before both. A build into another folder (`--out-dir`, the CLI tests'
  // private builds) empties that one and leaves dist/ to the commands running from it.
  rmSync(flags.outDir ?? 'dist', { recursive: true, force: true });
  return [
    { ...common, entry: { ...library, 'src/cli/main': 'src/cli/main.ts' }, format: ['esm'] },
    // Split too, so that the three CommonJS entries share one copy of each module (one ApiError class).
    { ...common, entry: library, format: ['cjs'] },
  ];
});
