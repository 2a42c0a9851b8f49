import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { buildAndPack, run } from '../helpers/package.js';

// issue 10, item 8: a TypeScript user of the published package gets its types. The repo is built
// and packed in a temporary copy (`npm run build`, `npm pack`), the tarball is unpacked into a
// scratch project's node_modules with the package's dependencies linked from this repo's (so the
// test needs no registry), and a strict TypeScript file using the emulator, the contract types and
// the client is compiled. `@ts-expect-error` lines prove the types are real, not `any`.

const CONSUMER = `
import { startEmulator, type EmulatorOptions, type RunningEmulator } from 'merchant-kit/emulator';
import { MerchantClient, productInput, formatAmount, type Order, type Product, type ProductInput, type OrderStatus } from 'merchant-kit';
import { CHECKS, type Check } from 'merchant-kit/checks';

const options: EmulatorOptions = { port: 0, memory: true, clock: 'manual' };
const emu: RunningEmulator = await startEmulator(options);
const test = emu.stores.find((s) => s.environment === 'test');
if (!test) throw new Error('no test store');
const credential: string = test.credential;

const input: ProductInput = productInput.parse({ name: 'Cola', category_external_id: 'CAT', price: '1000' });
const status: OrderStatus = 'accepted';
const orders: Order[] = [];
const products: Product[] = [];
const total: string = formatAmount(150000);
const checks: readonly Check[] = CHECKS;
const ids: string[] = checks.map((c) => c.id);

// @ts-expect-error a price is decimal text, never a number
const wrong: ProductInput = { ...input, price: 1000 };
// @ts-expect-error not a state of an order
const unknown: OrderStatus = 'shipped';

const client = new MerchantClient({ baseUrl: emu.sandbox_base_url, credential });
const me = await client.me();
const id: string = me.store.id;
await client.close();
await emu.close();
export { status, orders, products, total, wrong, unknown, id, ids };
`;

describe('the package as a TypeScript user installs it (issue 10, item 8)', () => {
  let dir: string;
  let tarball: string;
  let app: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'merchant-kit-pack-'));
    tarball = buildAndPack(dir);
    app = join(dir, 'app');
    const modules = join(app, 'node_modules');
    mkdirSync(modules, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', dir]);
    renameSync(join(dir, 'package'), join(modules, 'merchant-kit'));
    const manifest = JSON.parse(readFileSync(join(modules, 'merchant-kit', 'package.json'), 'utf8'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      const target = join(modules, dep);
      mkdirSync(join(target, '..'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', dep), target, 'dir');
    }
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false,
          types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: ['index.ts'],
      }),
    );
    writeFileSync(join(app, 'index.ts'), CONSUMER);
  }, 120_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('packs the declaration files that package.json points at', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'merchant-kit', 'package.json'), 'utf8'));
    const typesFiles = [manifest.types, manifest.exports['.'].types, manifest.exports['./emulator'].types, manifest.exports['./checks'].types];
    expect(typesFiles).toEqual(['./dist/src/index.d.ts', './dist/src/index.d.ts', './dist/emulator/index.d.ts', './dist/checks/index.d.ts']);
    for (const file of typesFiles) expect(existsSync(join(app, 'node_modules', 'merchant-kit', file)), file).toBe(true);
  });

  it('compiles a strict TypeScript file that uses startEmulator, the contract types, MerchantClient and the checks', () => {
    const tsc = run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(app, 'tsconfig.json')], app);
    expect(tsc.output).toBe('');
    expect(tsc.status).toBe(0);
  }, 60_000);

  it('fails to compile when a type is misused (the check can fail)', () => {
    writeFileSync(join(app, 'bad.ts'), `import type { ProductInput } from 'merchant-kit';\nexport const p: ProductInput = { name: 1 };\n`);
    const tsconfig = JSON.parse(readFileSync(join(app, 'tsconfig.json'), 'utf8'));
    writeFileSync(join(app, 'tsconfig.bad.json'), JSON.stringify({ ...tsconfig, files: ['bad.ts'] }));
    const tsc = run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(app, 'tsconfig.bad.json')], app);
    expect(tsc.status).not.toBe(0);
    expect(tsc.output).toMatch(/bad\.ts.*error TS2322/);
  }, 60_000);
});
