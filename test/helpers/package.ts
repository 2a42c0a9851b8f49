import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';
import { loadFactor } from './wait.js';

// Helpers of the package tests (test/package): a tiny semver range check for `engines.node`, the
// installed tree's package.json files, and a build + `npm pack` of the repo in a temporary copy (so
// that the shared `dist/` other tests run from is never cleaned under them).

type Version = [number, number, number];

function parseVersion(text: string): { version: Version; wild: number } | null {
  const m = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!m) return null;
  const parts = [m[1], m[2], m[3]];
  const wild = parts.findIndex((p) => p === undefined || /^[xX*]$/.test(p));
  const version = parts.map((p) => (p === undefined || /^[xX*]$/.test(p) ? 0 : Number(p))) as Version;
  return { version, wild: wild === -1 ? 3 : wild };
}

const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The version just past a partial one: `1.2` → 1.3.0, `1` → 2.0.0. */
function bump(v: Version, wild: number): Version {
  if (wild === 0) return [Infinity, 0, 0];
  if (wild === 1) return [v[0] + 1, 0, 0];
  return [v[0], v[1] + 1, 0];
}

type Test = (v: Version) => boolean;

function comparator(op: string, text: string): Test {
  const parsed = parseVersion(text);
  if (!parsed) throw new Error(`not a version: ${text}`);
  const { version: v, wild } = parsed;
  const upper = bump(v, wild);
  switch (op) {
    case '>=':
      return (x) => compare(x, v) >= 0;
    case '>':
      return wild < 3 ? (x) => compare(x, upper) >= 0 : (x) => compare(x, v) > 0;
    case '<=':
      return wild < 3 ? (x) => compare(x, upper) < 0 : (x) => compare(x, v) <= 0;
    case '<':
      return (x) => compare(x, v) < 0;
    case '^': {
      const cap: Version = v[0] > 0 || wild <= 1 ? [v[0] + 1, 0, 0] : v[1] > 0 || wild <= 2 ? [0, v[1] + 1, 0] : [0, 0, v[2] + 1];
      return (x) => compare(x, v) >= 0 && compare(x, cap) < 0;
    }
    case '~': {
      const cap: Version = wild <= 1 ? [v[0] + 1, 0, 0] : [v[0], v[1] + 1, 0];
      return (x) => compare(x, v) >= 0 && compare(x, cap) < 0;
    }
    default:
      return (x) => compare(x, v) >= 0 && (wild < 3 ? compare(x, upper) < 0 : compare(x, v) === 0);
  }
}

/**
 * Whether `version` satisfies the npm range `range` (`>=18`, `^20.19.0 || >=22.12.0`, `14 - 20`,
 * `18.x`, `*`). Prerelease tags are ignored: engines ranges name releases.
 */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version)?.version;
  if (!v) throw new Error(`not a version: ${version}`);
  return range.split('||').some((alternative) => {
    const text = alternative.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1');
    if (text === '' || text === '*' || text === 'x') return true;
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
    if (hyphen) return comparator('>=', hyphen[1])(v) && comparator('<=', hyphen[2])(v);
    return text.split(/\s+/).every((part) => {
      const m = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(part)!;
      return comparator(m[1] ?? '=', m[2])(v);
    });
  });
}

/** Every package.json of an installed tree, nested node_modules and scopes included. */
export function installedPackages(nodeModules: string): { name: string; version: string; engines?: { node?: string }; dir: string }[] {
  const out: { name: string; version: string; engines?: { node?: string }; dir: string }[] = [];
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith('.')) continue;
      const path = join(dir, entry);
      if (entry.startsWith('@')) {
        visit(path);
        continue;
      }
      const manifest = join(path, 'package.json');
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
      out.push({ name: pkg.name ?? entry, version: pkg.version, engines: pkg.engines, dir: path });
      visit(join(path, 'node_modules'));
    }
  };
  visit(nodeModules);
  return out;
}

export interface RunResult {
  status: number | null;
  /** stdout and stderr together. */
  output: string;
  stdout: string;
}

/**
 * Runs a command to its end. `timeoutMs` only bounds a hang: it is the limit on a quiet machine,
 * grown with the load when the command starts (a build took over 240 s at a load near 35 on 2 cores).
 */
export function run(command: string, args: string[], cwd: string, timeoutMs = 240_000): RunResult {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: Math.round(timeoutMs * loadFactor()), env: { ...process.env, npm_config_update_notifier: 'false' } });
  return { status: r.status, stdout: r.stdout ?? '', output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/**
 * `run` without blocking the test's process, never rejecting: what failed is in the result. The
 * limit only bounds a hang (SIGKILL, then status null), grown with the load as `run`'s. `env` adds to
 * this process's environment.
 */
export function runAsync(command: string, args: string[], cwd: string, timeoutMs = 600_000, env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (d) => ((stdout += d), (output += d)));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), Math.round(timeoutMs * loadFactor()));
    child.once('error', (error) => (output += String(error)));
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ status: code, stdout, output });
    });
  });
}

const BUILD_INPUTS = [
  'package.json', 'tsup.config.ts', 'tsconfig.json', 'tsconfig.build.json', 'rollup.types.config.mjs', 'prepare.mjs',
  'bin', 'src', 'emulator', 'checks', 'fixtures', 'docs', 'README.md', 'LICENSE',
];

/**
 * Copies what the build reads into `<dir>/pkg` and links the repo's node_modules; returns that folder.
 * `buildPackage` then builds it and `packPackage` packs it.
 */
export function copyPackage(dir: string): string {
  const pkg = join(dir, 'pkg');
  mkdirSync(pkg, { recursive: true });
  for (const name of BUILD_INPUTS) {
    if (existsSync(join(ROOT, name))) cpSync(join(ROOT, name), join(pkg, name), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  return pkg;
}

/** `npm run build` (the package's own build script) in the copy; throws when it fails, returns its output. */
export async function buildPackage(pkg: string): Promise<RunResult> {
  const build = await runAsync('npm', ['run', 'build'], pkg, 240_000);
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.output}`);
  return build;
}

/** `npm pack` of the built copy into `dir`; returns the tarball's path. */
export async function packPackage(pkg: string, dir: string): Promise<string> {
  // With its scripts, as a user packs a clone: prepack leaves the built dist/ as it is and writes the
  // tarball's package.json without the clone's own scripts (prepare.mjs).
  const pack = await runAsync('npm', ['pack', '--json', '--pack-destination', dir], pkg, 240_000);
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.output}`);
  const json = pack.stdout.slice(pack.stdout.indexOf('['), pack.stdout.lastIndexOf(']') + 1);
  return join(dir, (JSON.parse(json) as { filename: string }[])[0].filename);
}

/**
 * Lets better-sqlite3's install script in projects under `dir` take the driver this repo's install
 * built instead of compiling it again (a minute each): its installer, prebuild-install, looks for a
 * local prebuilt binary before downloading one, in the folder named by a `.prebuild-installrc` found
 * from the project up. The install script still runs, as in a user's project.
 */
export function reuseNativeDriver(dir: string): void {
  const driver = join(ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(driver, 'package.json'), 'utf8')) as { version: string };
  const prebuilds = join(dir, 'prebuilds');
  mkdirSync(prebuilds, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(prebuilds, name), '-C', driver, 'build/Release/better_sqlite3.node']);
  writeFileSync(join(dir, '.prebuild-installrc'), `local-prebuilds=${prebuilds}\n`);
}

/**
 * A new project as `npm init -y` makes it (CommonJS; `module` sets "type": "module"), with the
 * `allowScripts` that README's "Use it from your project" asks for. Returns the project's folder.
 * Nothing in it waits for the package: it is made while the package builds.
 */
export async function newConsumer(dir: string, name: string, type: 'commonjs' | 'module'): Promise<string> {
  const project = join(dir, name);
  mkdirSync(project, { recursive: true });
  const init = await runAsync('npm', ['init', '-y'], project, 240_000);
  if (init.status !== 0) throw new Error(`npm init failed:\n${init.output}`);
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
  if (type === 'module') manifest.type = 'module';
  // better-sqlite3's install script fetches or builds the driver. Nothing for merchant-kit itself: the
  // tarball's package.json has no install script of its own (issue 27), so npm has none to list.
  manifest.allowScripts = { 'better-sqlite3': true };
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return project;
}

/** `npm install <tarball>` in the project, as a user installs the package; returns the install's output. */
export function installTarball(project: string, tarball: string): Promise<RunResult> {
  // --no-audit --no-fund: the registry's advisories and funding notes say nothing about this package.
  return runAsync('npm', ['install', tarball, '--no-audit', '--no-fund'], project, 600_000);
}

/** The lines of npm's output that warn or fail (`npm warn …`, `npm error …`, EBADENGINE). */
export function warnings(output: string): string[] {
  return output.split('\n').filter((line) => /\b(warn|error|ERR!)\b|EBADENGINE|deprecated/i.test(line));
}

/**
 * A second new project with the install of `from` (issue 27): a copy of its folder, node_modules
 * included, with `"type"` set. npm's install reads no `type`, so a second `npm install` of the same
 * tarball would build the same tree; the copy proves the same for a project of the other type.
 */
export function copyConsumer(from: string, name: string, type: 'commonjs' | 'module'): string {
  const project = join(from, '..', name);
  cpSync(from, project, { recursive: true, verbatimSymlinks: true });
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
  manifest.name = name;
  manifest.type = type;
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return project;
}
