// `npm run bench [-- <name>... [flags]]`: runs every bench/*.mjs with its defaults, or only the named
// ones with the given flags, one after the other. Benchmarks use the build in dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

const here = import.meta.dirname;
const all = readdirSync(here).filter((f) => f.endsWith('.mjs')).sort();
const args = process.argv.slice(2);
const named = args.filter((a) => all.includes(a) || all.includes(`${a}.mjs`));
const passOn = args.filter((a) => !named.includes(a));
const chosen = named.length ? named.map((a) => (a.endsWith('.mjs') ? a : `${a}.mjs`)) : all;
// Each benchmark has flags of its own: they go only to benchmarks named on the command line.
if (passOn.length && !named.length) {
  console.error(`Name the benchmark that ${passOn.join(' ')} is for: ${all.map((f) => basename(f, '.mjs')).join(', ')}.`);
  process.exit(2);
}

if (!existsSync(join(here, '..', 'dist', 'emulator', 'index.js'))) {
  console.error('The build is missing: run `npx tsup` (or `npm run build`) before the benchmarks.');
  process.exit(1);
}
let failed = 0;
for (const file of chosen) {
  console.log(`\n== ${basename(file, '.mjs')} ==`);
  const { status } = spawnSync(process.execPath, [join(here, file), ...passOn], { stdio: 'inherit' });
  if (status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
