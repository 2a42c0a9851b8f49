// The layer figures of a checkout, printed: `npx esbuild test/architecture/report.ts --bundle
// --platform=node --format=esm --log-level=warning | node --input-type=module - [ROOT]`. A checkout
// from before the adapters moved (emulator/store/sqlite/, emulator/store/postgres/) is read with
// those folders as the adapters.
import { backArrows, describe, folderCycles, importGraph } from './imports.js';
import { LAYERS, SCANNED } from './layers.js';

const root = process.argv[2] ?? process.cwd();
const layers = LAYERS.map((l) => (l.name === 'adapters' ? { ...l, paths: [...l.paths, 'emulator/store/sqlite/', 'emulator/store/postgres/'] } : l));
const edges = importGraph(root, SCANNED);
const back = backArrows(layers, edges);
const inEmulator = back.filter((e) => e.from.startsWith('emulator/') && e.to.startsWith('emulator/'));
console.log(`back-arrows: ${back.length} (${back.filter((e) => !e.typeOnly).length} runtime), of which inside emulator/: ${inEmulator.length}`);
for (const e of back) console.log(`  ${describe(e)}`);
const cycles = folderCycles(edges);
console.log(`runtime cycles across emulator's top-level folders: ${cycles.length}`);
for (const c of cycles) {
  console.log(`  ${c.folders.length} folders: ${c.folders.join(', ')}`);
  for (const e of c.arrows) console.log(`    ${describe(e)}`);
}
