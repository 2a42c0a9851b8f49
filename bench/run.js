// `npm run bench [-- <name>...] [-- --duration 3]`: runs every bench/*.mjs, or only the named ones,
// one after the other, passing the remaining arguments on. Benchmarks use the build in dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

const here = import.meta.dirname;
const all = readdirSync(here).filter((f) => f.endsWith('.mjs')).sort();
const args = process.argv.slice(2);
const named = args.filter((a) => all.includes(a) || all.includes(`${a}.mjs`));
const passOn = args.filter((a) => !named.includes(a));
const chosen = named.length ? named.map((a) => (a.endsWith('.mjs') ? a : `${a}.mjs`)) : all;

if (!existsSync(join(here, '..', 'dist', 'emulator', 'index.js'))) {
  console.error('Falta la compilación: ejecute `npx tsup` (o `npm run build`) antes de los benchmarks.');
  process.exit(1);
}
let failed = 0;
for (const file of chosen) {
  console.log(`\n== ${basename(file, '.mjs')} ==`);
  const { status } = spawnSync(process.execPath, [join(here, file), ...passOn], { stdio: 'inherit' });
  if (status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
