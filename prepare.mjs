// npm's lifecycle scripts of a clone (package.json): `prepare`, `prepack` and `postpack` run this.
//
//   node prepare.mjs          prepare: build dist/ when it is missing or older than a source
//   node prepare.mjs --pack   prepack: the same, then package.json without these scripts for the tarball
//   node prepare.mjs --unpack postpack: package.json as it was
//
// Why not `npm run build` every time: npm runs a package's `prepare` in more places than `npm install`
// in a clone. `npx merchant-kit` inside the clone installs the clone into npx's cache as a link, and
// npm runs a link's `prepare`: a full build (a minute) behind a bare spinner, of a dist/ that
// `npm install` had just built. And a tarball is built already: npm never runs its `prepare`, yet npm
// 11 lists it among the install scripts to review, so the packed package.json leaves it out.
// Only Node's own modules: this runs before anything is installed.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(fileURLToPath(import.meta.url));
const MANIFEST = join(ROOT, 'package.json');
/** package.json as it was before `--pack`: put back by `--unpack`, or by the next run when a pack was cut short. */
const KEPT = join(ROOT, '.package.json.prepack');

/** What the build reads: the sources and its own configuration. */
const SOURCE_DIRS = ['src', 'emulator', 'checks'];
const SOURCE_FILES = ['package.json', 'tsup.config.ts', 'tsconfig.json', 'tsconfig.build.json', 'rollup.types.config.mjs'];

function newestIn(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestIn(path));
    else newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Every file the package's entries name (`exports`, `main`, `types`, the bin's target). */
function builtFiles(manifest) {
  const targets = [manifest.main, manifest.types, 'dist/src/cli/main.js'];
  const walk = (value) => {
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(manifest.exports);
  return [...new Set(targets.filter((t) => t.startsWith('./dist/') || t.startsWith('dist/')).map((t) => join(ROOT, t)))];
}

/** True when every built file exists and none is older than a source. */
function upToDate(manifest) {
  const built = builtFiles(manifest);
  if (built.length === 0 || !built.every((file) => existsSync(file))) return false;
  const oldestBuilt = Math.min(...built.map((file) => statSync(file).mtimeMs));
  const newestSource = Math.max(
    ...SOURCE_DIRS.filter((d) => existsSync(join(ROOT, d))).map((d) => newestIn(join(ROOT, d))),
    ...SOURCE_FILES.filter((f) => existsSync(join(ROOT, f))).map((f) => statSync(join(ROOT, f)).mtimeMs),
  );
  return newestSource <= oldestBuilt;
}

/** A pack cut short (Ctrl+C between prepack and postpack) left package.json without `prepare`. */
function restoreManifest() {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
}

function buildIfStale() {
  // An installed copy (no sources) has nothing to build.
  if (!existsSync(join(ROOT, 'src'))) return;
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  if (upToDate(manifest)) return;
  const npm = process.env.npm_execpath;
  // The package's own build script (README, contributing.md), through the npm that runs this one.
  if (npm && /\.[cm]?js$/.test(npm)) execFileSync(process.execPath, [npm, 'run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  else execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
}

const mode = process.argv[2];
restoreManifest();
if (mode === '--unpack') process.exit(0);
buildIfStale();
if (mode === '--pack') {
  const text = readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text);
  // The tarball has no sources, nor this file: nothing for these to do in an installed copy. (npm
  // runs this pack's postpack from the manifest it read before the prepack.)
  for (const script of ['prepare', 'prepack', 'postpack']) delete manifest.scripts[script];
  // Kept with its own times: put back, it must not read as a source newer than dist/.
  const { atime, mtime } = statSync(MANIFEST);
  writeFileSync(KEPT, text);
  utimesSync(KEPT, atime, mtime);
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
}
