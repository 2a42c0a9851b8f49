import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import {
  buildPackage, copyConsumer, copyPackage, installedPackages, installTarball, newConsumer, packPackage, reuseNativeDriver, run, runAsync, satisfies,
  warnings, type RunResult,
} from '../helpers/package.js';

// issue 14: the package as a user gets it. The repo is built and packed in a scratch copy
// (`npm run build`, `npm pack`); the tarball is installed with `npm install <tarball>` into a new
// project made by `npm init -y` (CommonJS), with the allowScripts of README's "Use it from your
// project" (dependencies come from the registry; better-sqlite3's install takes the driver this repo
// built, see reuseNativeDriver), and a copy of that project with `"type": "module"` is the ESM one
// (npm's install reads no `type`: a second install would build the same tree, for 15 s). Both run
// the package, and TypeScript files using it are compiled under a consumer's settings: TypeScript's
// defaults, a fresh `tsc --init`, nodenext and bundler, always with `skipLibCheck` off (SETTINGS says why
// these four).
// TypeScript and @types/node are this repo's. The settings TypeScript 7 supports run through its
// native `tsc` (`typescript-native`, one checker, lib files not checked: about 2.5 s of CPU each,
// against about 5 s each through TypeScript 5's API, issue 27); TypeScript's defaults (target ES5,
// node10 resolution), which TypeScript 7 no longer supports, run through TypeScript 5's API
// (test/helpers/consumer-types.mjs): what that setting's `tsc` reports about the consumer's files and
// merchant-kit's declarations (lib files and @types/node, the user's own, are not checked), and the
// CommonJS output a test then runs. All start once the projects are ready. Every command a test
// looks at starts in beforeAll as soon as what it needs is
// there (the new project while the package builds; npx in the clone and the projects' runs beside the
// type checks), and each test awaits its own.

const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const TSC_NATIVE = join(ROOT, 'node_modules', 'typescript-native', 'bin', 'tsc');
const FLOOR = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string).replace(/^>=\s*/, '');

/** Client only; no top-level await, so that it compiles as CommonJS as well. */
const CLIENT_TS = `
import { MerchantClient, ApiError, productInput, formatAmount, type Order, type OrderStatus, type ProductInput } from 'merchant-kit';

async function main(): Promise<void> {
  const client = new MerchantClient({ baseUrl: process.argv[2] ?? 'http://127.0.0.1:1/sandbox/v1', credential: process.argv[3] ?? 'x' });
  const input: ProductInput = productInput.parse({ name: 'Cola', category_external_id: 'CAT', price: '1000' });
  const orders: Order[] = [];
  const status: OrderStatus = 'accepted';
  // @ts-expect-error a price is decimal text, never a number
  const wrong: ProductInput = { ...input, price: 1000 };
  // @ts-expect-error not a state of an order
  const unknown: OrderStatus = 'shipped';
  try {
    const me = await client.me();
    console.log(me.store.id.slice(0, 4), input.price, orders.length, status, formatAmount(150000), [wrong, unknown].length);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    console.log(error.code);
  } finally {
    await client.close();
  }
}
void main();
`;

/** The three entries together: an emulator, the client and the control client against it, the checks. */
const FULL_TS = `
import { startEmulator, buildEmulator, type EmulatorOptions, type RunningEmulator } from 'merchant-kit/emulator';
import { MerchantClient, EmulatorControl, type Product } from 'merchant-kit';
import { CHECKS, type Check } from 'merchant-kit/checks';

async function main(): Promise<void> {
  const options: EmulatorOptions = { port: 0, memory: true, clock: 'manual' };
  const emu: RunningEmulator = await startEmulator(options);
  const test = emu.stores.find((s) => s.environment === 'test');
  if (!test) throw new Error('no test store');
  const credential: string = test.credential;
  const client = new MerchantClient({ baseUrl: emu.sandbox_base_url, credential });
  const control = EmulatorControl.fromBaseUrl(emu.sandbox_base_url);
  const clock = await control.clock();
  const me = await client.me();
  const products: Product[] = [];
  const checks: readonly Check[] = CHECKS;
  const { app } = await buildEmulator({ memory: true });
  const health = await app.inject({ method: 'GET', url: '/_emulator/health' });
  await app.close();
  console.log(JSON.stringify({ store: me.store.id.slice(0, 4), mode: clock.mode, products: products.length, checks: checks.length, inject: health.statusCode }));
  await client.close();
  await control.close();
  await emu.close();
}
void main();
`;

const CJS_JS = `
const { MerchantClient, ApiError } = require('merchant-kit');
const { startEmulator } = require('merchant-kit/emulator');
const { CHECKS } = require('merchant-kit/checks');
(async () => {
  const emu = await startEmulator({ port: 0, memory: true, clock: 'manual' });
  const test = emu.stores.find((s) => s.environment === 'test');
  const client = new MerchantClient({ baseUrl: emu.sandbox_base_url, credential: test.credential });
  const me = await client.me();
  const esm = await import('merchant-kit');
  console.log(JSON.stringify({ store: me.store.id.slice(0, 4), checks: CHECKS.length, apiError: typeof ApiError, imported: typeof esm.MerchantClient }));
  await client.close();
  await emu.close();
})();
`;

const ESM_JS = `
import { MerchantClient } from 'merchant-kit';
import { startEmulator } from 'merchant-kit/emulator';
import { CHECKS } from 'merchant-kit/checks';
const emu = await startEmulator({ port: 0, memory: true, clock: 'manual' });
const test = emu.stores.find((s) => s.environment === 'test');
const client = new MerchantClient({ baseUrl: emu.sandbox_base_url, credential: test.credential });
const me = await client.me();
console.log(JSON.stringify({ store: me.store.id.slice(0, 4), checks: CHECKS.length }));
await client.close();
await emu.close();
`;

const tsc = (cwd: string, args: string[]): RunResult => run(process.execPath, [TSC, ...args], cwd);
const CONSUMER_TYPES = join(ROOT, 'test', 'helpers', 'consumer-types.mjs');
const node = (cwd: string, args: string[]): Promise<RunResult> => runAsync(process.execPath, args, cwd, 120_000);

/**
 * Compiler flags of each setting; files are appended. `null`: the project's tsconfig.json (`tsc --init`'s).
 * Between them they cover each way a consumer's TypeScript reads the package: node10 through
 * `typesVersions` and `types` (the .d.cts), Node's `exports` with the `require` condition (the .d.cts)
 * and with `import` (the .d.ts, whose relative imports must then name their files), a bundler's
 * `import` (the .d.ts); the targets ES5, ES2022 and ESNext; `strict` alone and tsc --init's stricter
 * set. Left out (issue 27), since they check the same files the same way as a setting here: node16
 * (Node's resolution as nodenext's, with the same conditions: CommonJS is nodenext's, ESM is tsc
 * --init's at ES2022, bundler's target) and bundler with `module preserve` (the module option changes
 * nothing in a declaration file, nor in these files' ES imports without emit).
 */
const SETTINGS: { name: string; project: 'cjs' | 'esm'; flags: string[] | null; native: boolean }[] = [
  // `tsc --strict file.ts`: module CommonJS, moduleResolution node10, target ES5, no esModuleInterop.
  // TypeScript 7 rejects ES5 and node10: TypeScript 5 checks it (and emits the CommonJS a test runs).
  { name: "TypeScript's defaults (tsc --strict)", project: 'cjs', flags: ['--strict'], native: false },
  { name: 'nodenext, CommonJS', project: 'cjs', flags: ['--strict', '--module', 'nodenext', '--target', 'es2022'], native: true },
  { name: "a fresh tsc --init's tsconfig.json (nodenext), ESM", project: 'esm', flags: null, native: true },
  { name: 'bundler (module esnext)', project: 'esm', flags: ['--strict', '--module', 'esnext', '--moduleResolution', 'bundler', '--target', 'es2022'], native: true },
];

/**
 * TypeScript 7's `tsc` with a setting's flags (`null`: `-p .`), one checker (the suite is CPU-bound;
 * four recompute what they share). `--skipDefaultLibCheck`: TypeScript's lib files are the user's, as
 * consumer-types.mjs leaves them; merchant-kit's declarations and all they reach are checked.
 * `--ignoreConfig`: the ESM project's tsconfig.json is tsc --init's setting, not bundler's.
 */
const nativeTsc = (cwd: string, flags: string[] | null, args: string[]): Promise<RunResult> =>
  runAsync(process.execPath, [TSC_NATIVE, ...(flags ? [...flags, '--ignoreConfig'] : ['-p', '.']), '--checkers', '1', ...args], cwd, 240_000);

describe('the packed package in new projects (issue 14)', () => {
  let dir: string;
  let tarball: string;
  let build: RunResult;
  let install: RunResult;
  const projects: Record<'cjs' | 'esm', { dir: string }> = {} as never;
  /** Each setting's compile of client.ts and full.ts, and its list of files for client.ts alone (started in beforeAll). */
  const compiles = new Map<string, Promise<RunResult>>();
  const listings = new Map<string, Promise<RunResult>>();
  /**
   * The commands the tests look at, each started in beforeAll as soon as what it needs is there, so
   * that they run at once (issue 27): each test awaits its own. They never reject (runAsync).
   */
  let runs: Record<'cjs' | 'esm' | 'installedCli' | 'insideClone' | 'full', Promise<RunResult>>;
  /** The clone's built CLI and its time before `npx` ran in the clone. */
  let cloneMain: string;
  let cloneBuilt: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'merchant-kit-pack-'));
    const pkg = copyPackage(dir);
    // The new project (`npm init -y`) and the driver for its install are made while the package builds.
    const consumer = newConsumer(dir, 'cjs', 'commonjs');
    consumer.catch(() => undefined);
    reuseNativeDriver(dir);
    build = await buildPackage(pkg);
    tarball = await packPackage(pkg, dir);
    const cjs = await consumer;
    install = await installTarball(cjs, tarball);
    // npx in the clone reads the clone, not the new project: it runs beside the type checks (not beside
    // the install, which the type checks wait for). A cache of its own: npx's first run in this clone,
    // as in a fresh one.
    cloneMain = join(pkg, 'dist', 'src', 'cli', 'main.js');
    cloneBuilt = statSync(cloneMain).mtimeMs;
    const insideClone = runAsync('npx', ['--no-install', 'merchant-kit', '--version'], pkg, 240_000, { npm_config_cache: join(dir, 'npm-cache') });
    const failed = Promise.resolve({ status: null, output: `npm install failed:\n${install.output}`, stdout: '' });
    runs = { cjs: failed, esm: failed, installedCli: failed, insideClone, full: failed };
    if (install.status !== 0) return;
    projects.cjs = { dir: cjs };
    projects.esm = { dir: copyConsumer(cjs, 'esm', 'module') };
    for (const project of Object.values(projects)) {
      writeFileSync(join(project.dir, 'client.ts'), CLIENT_TS);
      writeFileSync(join(project.dir, 'full.ts'), FULL_TS);
      // A TypeScript user's own @types/node (README: the types need it), unless the install brought one.
      const types = join(project.dir, 'node_modules', '@types');
      mkdirSync(types, { recursive: true });
      if (!existsSync(join(types, 'node'))) symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(types, 'node'), 'dir');
    }
    writeFileSync(join(projects.cjs.dir, 'run.js'), CJS_JS);
    writeFileSync(join(projects.esm.dir, 'run.js'), ESM_JS);
    // What a new TypeScript project starts from, with the strictest library check.
    const init = tsc(projects.esm.dir, ['--init']);
    if (init.status !== 0) throw new Error(`tsc --init failed:\n${init.output}`);
    const tsconfig = join(projects.esm.dir, 'tsconfig.json');
    writeFileSync(tsconfig, readFileSync(tsconfig, 'utf8').replace(/"skipLibCheck": true/, '"skipLibCheck": false'));
    // The first setting emits CommonJS into build/, which a test then runs.
    const jobsOf = (setting: (typeof SETTINGS)[number]) => {
      const cwd = projects[setting.project].dir;
      const compile = {
        name: `compile: ${setting.name}`, cwd, flags: setting === SETTINGS[0] ? ['--strict', '--outDir', 'build'] : setting.flags, files: ['client.ts', 'full.ts'],
        noEmit: setting !== SETTINGS[0],
      };
      return setting.flags ? [compile, { name: `list: ${setting.name}`, cwd, flags: setting.flags, files: ['client.ts'], listOnly: true }] : [compile];
    };
    const jobs = SETTINGS.filter((s) => !s.native).flatMap(jobsOf);
    writeFileSync(join(dir, 'jobs.json'), JSON.stringify(jobs));
    const checked = runAsync(process.execPath, [CONSUMER_TYPES, join(dir, 'jobs.json')], dir).then((out) => {
      if (out.status !== 0) throw new Error(`consumer-types.mjs failed:\n${out.output}`);
      const results = JSON.parse(out.stdout) as { name: string; status: number; output: string; files: string[] }[];
      return new Map(results.map((r) => [r.name, { status: r.status, output: r.output, stdout: r.files.join('\n'), files: r.files }]));
    });
    /** The consumer-types report of a job, by name; a crash fails every test that awaits it, and until then none is unhandled. */
    const part = (name: string) => {
      const result = checked.then((results) => results.get(name)!);
      result.catch(() => undefined);
      return result;
    };
    // TypeScript 7's runs one after another, beside TypeScript 5's process: each is a core's work.
    let native: Promise<unknown> = Promise.resolve();
    const next = (job: () => Promise<RunResult>) => {
      const result = native.then(job);
      native = result;
      return result;
    };
    for (const setting of SETTINGS) {
      const cwd = projects[setting.project].dir;
      if (!setting.native) {
        compiles.set(setting.name, part(`compile: ${setting.name}`));
        if (setting.flags) listings.set(setting.name, part(`list: ${setting.name}`));
        continue;
      }
      compiles.set(setting.name, next(() => nativeTsc(cwd, setting.flags, ['--noEmit', '--skipDefaultLibCheck', ...(setting.flags ? ['client.ts', 'full.ts'] : [])])));
      if (setting.flags) listings.set(setting.name, next(() => nativeTsc(cwd, setting.flags, ['--listFilesOnly', 'client.ts'])));
    }
    runs = {
      ...runs,
      cjs: node(projects.cjs.dir, ['run.js']),
      esm: node(projects.esm.dir, ['run.js']),
      installedCli: runAsync('npx', ['--no-install', 'merchant-kit', '--version'], projects.cjs.dir, 120_000),
      // TypeScript's CommonJS output runs once the first setting has compiled it.
      full: compiles.get(SETTINGS[0].name)!.then(() => node(projects.cjs.dir, [join('build', 'full.js')]), (error) => ({ status: null, output: String(error), stdout: '' })),
    };
  }, 900_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ships the LICENSE, the built entries in both formats and their declarations; no source maps, no generated menu', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').map((f) => f.replace(/^package\//, ''));
    expect(files).toContain('LICENSE');
    // The CLI's build carries its dependencies' code, so it carries their licenses too (tsup.config.ts).
    expect(files).toContain('dist/src/cli/THIRD-PARTY-NOTICES.md');
    const notices = readFileSync(join(projects.cjs.dir, 'node_modules', 'merchant-kit', 'dist', 'src', 'cli', 'THIRD-PARTY-NOTICES.md'), 'utf8');
    for (const name of ['zod', 'commander', 'fastify', 'undici']) expect(notices).toMatch(new RegExp(`^## ${name} \\d`, 'm'));
    expect(notices).toMatch(/Permission is hereby granted/);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} merchant-kit contributors\n/);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /^fixtures\/catalog\/large-/.test(f))).toEqual([]);
    expect(files).toContain('fixtures/catalog/generate-large.mjs');
    // issue 27: the guides a user reads, not the contributors' page nor the panel's 434 kB screenshot.
    expect(files).toContain('docs/client.md');
    expect(files.filter((f) => f === 'docs/contributing.md' || f.endsWith('.png'))).toEqual([]);
    // No script of the clone's own: npm 11 would list `prepare` among the install scripts to review.
    expect(readFileSync(join(projects.cjs.dir, 'node_modules', 'merchant-kit', 'package.json'), 'utf8')).not.toMatch(/"(prepare|prepack|postpack)"/);
    // Declarations: one bundle per entry (and shared chunks), none of a module of the emulator.
    const declarations = files.filter((f) => /\.d\.c?ts$/.test(f));
    expect(declarations.filter((f) => !/^dist\/(src|emulator|checks)\/index\.d\.c?ts$|^dist\/types\//.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(projects.cjs.dir, 'node_modules', 'merchant-kit', 'package.json'), 'utf8'));
    const targets = Object.values(manifest.exports as Record<string, unknown>).flatMap((e) =>
      typeof e === 'string' ? [e] : Object.values(e as Record<string, Record<string, string>>).flatMap((c) => Object.values(c)));
    expect(targets.length).toBe(13);
    for (const target of [...targets, manifest.main, manifest.types]) expect(files, target).toContain(target.replace(/^\.\//, ''));
    expect(manifest.dependencies['@types/better-sqlite3']).toBeUndefined();
  });

  it('builds quietly: npm run build prints nothing but npm\'s own lines (no listing of chunks)', () => {
    const lines = build.output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('> '));
    expect(lines).toEqual([]);
  });

  it('installs into a new project without a warning', () => {
    expect(install.status, install.output).toBe(0);
    expect(warnings(install.output)).toEqual([]);
  });

  // What npm warns about (EBADENGINE) on the Node release that runs it; this holds for the floor itself.
  it('installs only packages that run on the lowest Node the package supports', () => {
    const packages = installedPackages(join(projects.cjs.dir, 'node_modules'));
    expect(packages.some((p) => p.name === 'fastify')).toBe(true);
    const excluding = packages
      .filter((p) => typeof p.engines?.node === 'string' && !satisfies(FLOOR, p.engines.node))
      .map((p) => `${p.name}@${p.version} (engines.node ${p.engines!.node})`);
    expect(excluding).toEqual([]);
  });

  it('runs in the CommonJS project: require() of each entry, and import() of the client', async () => {
    const out = await runs.cjs;
    expect(out.status, out.output).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ store: 'str_', checks: 8, apiError: 'function', imported: 'function' });
  }, 300_000);

  it('runs the installed CLI: npx --no-install merchant-kit --version', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    const out = await runs.installedCli;
    expect(out.status, out.output).toBe(0);
    expect(out.output.trim()).toBe(version);
  }, 300_000);

  // issue 27: inside a clone, npx installs the clone into its cache as a link and runs its
  // `prepare`, which built the whole package again (65 s behind a bare spinner).
  it('inside a clone, npx --no-install merchant-kit runs it without building it again (prepare finds dist/ up to date)', async () => {
    const out = await runs.insideClone;
    expect(out.status, out.output).toBe(0);
    expect(out.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect(out.output).not.toMatch(/> merchant-kit@[\d.]+ build/);
    expect(statSync(cloneMain).mtimeMs).toBe(cloneBuilt);
  }, 300_000);

  it('runs in the ESM project: import of each entry', async () => {
    const out = await runs.esm;
    expect(out.status, out.output).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ store: 'str_', checks: 8 });
  }, 300_000);

  // The `@ts-expect-error` lines of client.ts make each of these fail if the types were `any`.
  it.each(SETTINGS.map((s) => [s.name, s] as const))('compiles strict TypeScript that uses every entry, under %s', async (_name, setting) => {
    const out = await compiles.get(setting.name)!;
    expect(out.output).toBe('');
    expect(out.status).toBe(0);
  }, 300_000);

  it("runs TypeScript's CommonJS output: `import { MerchantClient } from 'merchant-kit'` in a CommonJS project", async () => {
    const cwd = projects.cjs.dir;
    expect((await compiles.get(SETTINGS[0].name)!).output).toBe('');
    expect(readFileSync(join(cwd, 'build', 'full.js'), 'utf8')).toMatch(/require\("merchant-kit"\)/);
    const out = await runs.full;
    expect(out.status, out.output).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ store: 'str_', mode: 'manual', products: 0, checks: 8, inject: 200 });
  }, 300_000);

  // A client-only user does not pay for the emulator's types (issue 14: 17 s before).
  it.each(SETTINGS.filter((s) => s.flags).map((s) => [s.name, s] as const))(
    'type-checks only the client and the contract for a client-only import, under %s',
    async (_name, setting) => {
      const out = await listings.get(setting.name)!;
      expect(out.status, out.output).toBe(0);
      const files = out.stdout.trim().split('\n');
      const ours = files.filter((f) => f.includes('/node_modules/merchant-kit/'));
      expect(ours.some((f) => /\/dist\/src\/index\.d\.c?ts$/.test(f))).toBe(true);
      expect(ours.filter((f) => !/\/dist\/(src\/index|types\/[^/]+)\.d\.c?ts$/.test(f))).toEqual([]);
      expect(files.filter((f) => /\/(better-sqlite3|@types\/better-sqlite3|fastify|pino|light-my-request|zod)\//.test(f))).toEqual([]);
      for (const file of ours) expect(readFileSync(file, 'utf8'), file).not.toMatch(/declare class Emulator\b|better-sqlite3|FastifyInstance/);
    },
    120_000,
  );
});
