import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, type TestContext } from 'vitest';
import type { EmulatorOptions } from '../../emulator/emulator.js';
import { buildPrivateCli, cli, cliEntry, tempConfig, type CliResult } from './cli-core.js';
import { ROOT } from './cli.js';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { allCategories, allProducts } from './batch.js';

export const FIXTURES = join(ROOT, 'fixtures', 'catalog');
export const RESTAURANT_JSON = join(FIXTURES, 'asuncion-restaurant.json');
export const RESTAURANT_CSV = join(FIXTURES, 'asuncion-restaurant.csv');

/** A CLI run left going in the background (to be killed mid-way). */
export interface BackgroundCli {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once the process ended and its output was read, with its exit code. */
  exited: Promise<number | null>;
}

/** An emulator, a private config folder and a way to run `merchant-kit` against a store of it. */
export interface CatalogRig {
  emu: TestEmulator;
  dir: string;
  /** The environment for the CLI: sandbox base URL, the credential (seeded test store by default), config folder. */
  env(credential?: string): NodeJS.ProcessEnv;
  run(args: string[], options?: { credential?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CliResult>;
  /** Starts `merchant-kit …args` against the seeded store without waiting for it. */
  start(args: string[], env?: NodeJS.ProcessEnv): BackgroundCli;
  /** Writes a file in the rig's folder and returns its path. */
  file(name: string, text: string): string;
  close(): Promise<void>;
}

async function catalogRig(options: EmulatorOptions = {}, given?: TestEmulator): Promise<CatalogRig> {
  const emu = given ?? (await startTestEmulator(options));
  const config = tempConfig();
  const env = (credential = emu.test.credential): NodeJS.ProcessEnv => ({
    ...config.env,
    MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url,
    MERCHANT_KIT_CREDENTIAL: credential,
  });
  return {
    emu,
    dir: config.dir,
    env,
    run: (args, o = {}) => cli(args, { env: { ...env(o.credential), ...o.env }, timeoutMs: o.timeoutMs ?? 60_000 }),
    start: (args, extra = {}) => {
      const child = spawn(process.execPath, [cliEntry(), ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env(), ...extra } });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += String(d)));
      child.stdout.on('data', (d) => (stdout += String(d)));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      return { child, stdout: () => stdout, stderr: () => stderr, exited };
    },
    file: (name, text) => {
      const path = join(config.dir, name);
      writeFileSync(path, text);
      return path;
    },
    close: async () => {
      if (!given) await emu.close();
      config.cleanup();
    },
  };
}

/**
 * The rig of a test file, on a private build of the CLI (cli-core's buildPrivateCli: a rebuild of
 * dist/ by another test file cannot pull chunks from under a running command). One rig for the
 * whole file; a fresh one for each test with `each: true`; with `each: 'reset'`, one emulator for
 * the file, reset (POST /_emulator/reset: the seeded stores and credentials stay) with a fresh config
 * folder before each test — for files whose tests leave no request running behind them (a killed
 * CLI's batch would land in the next test's sandbox), and without limits (a reset keeps the rate
 * windows). Call once, at the top level of the file; the object returned always holds the current rig.
 */
export function useCatalogRig(options: EmulatorOptions & { each?: boolean | 'reset' } = {}): CatalogRig {
  const { each, ...emulator } = options;
  if (each === 'reset') {
    const rig = {} as CatalogRig;
    let removeBuild = () => {};
    let shared: TestEmulator | undefined;
    beforeAll(async () => {
      removeBuild = await buildPrivateCli();
      shared = await startTestEmulator(emulator);
    });
    afterAll(async () => {
      removeBuild();
      await shared?.close();
    });
    beforeEach(async () => {
      const reset = await shared!.control('POST', '/reset');
      if (reset.status !== 200) throw new Error(`POST /_emulator/reset answered ${reset.status}`);
      Object.assign(rig, await catalogRig(emulator, shared));
    });
    afterEach(() => rig.close());
    return rig;
  }
  const rig = {} as CatalogRig;
  let removeBuild = () => {};
  beforeAll(async () => {
    removeBuild = await buildPrivateCli();
  });
  afterAll(() => removeBuild());
  const open = async () => {
    Object.assign(rig, await catalogRig(emulator));
  };
  const close = () => rig.close();
  if (each) {
    beforeEach(open);
    afterEach(close);
  } else {
    beforeAll(open);
    afterAll(close);
  }
  return rig;
}

/**
 * For a file whose tests each need an emulator of their own and may run at once (`describe.concurrent`:
 * tests that wait on batches held by a delay fault, issue 27): the private build before the file,
 * and `own(t)` opens a fresh rig for the test of context `t`, closed when that test ends. Call once,
 * at the top level of the file.
 */
export function useOwnCatalogRigs(options: EmulatorOptions = {}): (t: TestContext) => Promise<CatalogRig> {
  let removeBuild = () => {};
  beforeAll(async () => {
    removeBuild = await buildPrivateCli();
  });
  afterAll(() => removeBuild());
  return async ({ onTestFinished }) => {
    const rig = await catalogRig(options);
    onTestFinished(() => rig.close());
    return rig;
  };
}

/**
 * A store's catalog without what differs between stores (ids, timestamps, image download state):
 * what `catalog pull` → `catalog sync` must carry over, sorted by code.
 */
export async function catalogOf(emu: TestEmulator, credential?: string) {
  const byCode = (a: { external_id: string | null }, b: { external_id: string | null }) => String(a.external_id).localeCompare(String(b.external_id));
  const categories = (await allCategories(emu, credential)).map((c) => ({ external_id: c.external_id, name: c.name, position: c.position, active: c.active }));
  const products = (await allProducts(emu, credential)).map((p) => ({
    external_id: p.external_id,
    name: p.name,
    category_external_id: p.category_external_id,
    price: p.price,
    description: p.description,
    sku: p.sku,
    position: p.position,
    active: p.active,
    available: p.available,
    image_url: p.image.requested_url,
    option_groups: p.option_groups.map((g: any) => ({
      external_id: g.external_id, name: g.name, min_select: g.min_select, max_select: g.max_select,
      options: g.options.map((o: any) => ({ external_id: o.external_id, name: o.name, price: o.price, available: o.available })),
    })),
  }));
  return { categories: categories.sort(byCode), products: products.sort(byCode) };
}

export function readJson(path: string): any {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The restaurant fixture as an object, to change and write back for a test. */
export const restaurant = () => readJson(RESTAURANT_JSON);

/** Each size's menu as the generator wrote it, so that a process is started once per size, not per test. */
const generated = new Map<number, string>();

/**
 * A generated menu of `products` products (fixtures/catalog/generate-large.mjs) written to `out`. The
 * generator is seeded (the same file on every run), so its text is kept and written again for the
 * next test that asks for the same size (issue 27: a Node process less each time).
 */
export function generateMenu(products: number, out: string): string {
  const text = generated.get(products);
  if (text !== undefined) {
    writeFileSync(out, text);
    return out;
  }
  execFileSync(process.execPath, [join(FIXTURES, 'generate-large.mjs'), '--products', String(products), '--out', out], { stdio: 'pipe' });
  generated.set(products, readFileSync(out, 'utf8'));
  return out;
}

/** The last JSON document printed on stdout (the `--json` summary). */
export function jsonOut(result: CliResult): any {
  try {
    return JSON.parse(result.stdout);
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}); stdout: ${result.stdout.slice(0, 500)}; stderr: ${result.stderr.slice(0, 2000)}`);
  }
}
