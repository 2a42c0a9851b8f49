// State bundle benchmark (needs the build: `npx tsup`): export and restore of a store with
// 20,000 products and 10,000 orders (targets: < 5 s each).
//
//   node bench/bundle.mjs [--products 20000] [--orders 10000]
//
// 1. starts `merchant-kit emulator start --memory --limits off` and fills its sandbox store through the
//    API (catalog batches of 500) and the order simulator (8 in flight);
// 2. export: GET /_emulator/export, and `merchant-kit emulator export --out FILE` end to end;
// 3. restore: `merchant-kit emulator start --from FILE` until its ready line, minus a plain start.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { call } from './lib/call.mjs';
import { benchArgs } from './lib/args.mjs';

const { values } = benchArgs(import.meta.url, { options: { products: { type: 'string', default: '20000' }, orders: { type: 'string', default: '10000' } } });
const PRODUCTS = Number(values.products);
const ORDERS = Number(values.orders);
const BIN = join(import.meta.dirname, '..', 'bin', 'merchant-kit.js');

function cli(args) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const lines = createInterface({ input: child.stdout });
  const first = new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, first, exited, stderr: () => stderr };
}

async function startEmulator(extra = []) {
  const started = performance.now();
  const proc = cli(['emulator', 'start', '--json', '--port', '0', '--memory', '--limits', 'off', '--clock', 'manual', ...extra]);
  const ready = JSON.parse(await proc.first);
  return { ready, ms: performance.now() - started, stop: async () => { proc.child.kill('SIGTERM'); await proc.exited; } };
}

async function fill(ready) {
  const test = ready.stores.find((s) => s.environment === 'test');
  const base = ready.sandbox_base_url;
  for (let c = 0; c < 20; c++) await call(`${base}/catalog/categories/CAT-${c}`, 'PUT', test.credential, { name: `Categoría ${c}` });
  for (let start = 0; start < PRODUCTS; start += 500) {
    const operations = [];
    for (let i = start; i < Math.min(PRODUCTS, start + 500); i++) {
      operations.push({ op: 'upsert_product', external_id: `P-${i}`, data: {
        name: `Producto ${i}`, category_external_id: `CAT-${i % 20}`, price: String(1000 + (i % 50) * 500), description: 'Descripción de prueba',
        option_groups: i % 10 === 0 ? [{ external_id: `G-${i}`, name: 'Extras', max_select: 2, options: [{ external_id: `O-${i}`, name: 'Queso', price: '3000' }] }] : undefined,
      } });
    }
    await call(`${base}/catalog/batch`, 'POST', test.credential, { operations }, { 'idempotency-key': `bench-batch-${start}` });
  }
  let next = 0;
  const worker = async () => {
    while (next < ORDERS) {
      next++;
      await call(`${ready.admin_url}/orders`, 'POST', null, { store_id: test.store_id, items: [{ product_external_id: `P-${next % PRODUCTS}`, quantity: 2 }] });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

const dir = mkdtempSync(join(tmpdir(), 'mk-bench-bundle-'));
const source = await startEmulator();
try {
  let t = performance.now();
  await fill(source.ready);
  console.log(`filled ${PRODUCTS} products and ${ORDERS} orders in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  t = performance.now();
  const res = await fetch(`${source.ready.admin_url}/export`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const httpMs = performance.now() - t;
  console.log(`export, GET /_emulator/export: ${httpMs.toFixed(0)} ms (${(bytes.length / 1e6).toFixed(1)} MB gzip)`);

  const file = join(dir, 'state.json.gz');
  t = performance.now();
  const exp = cli(['emulator', 'export', '--out', file, '--base-url', source.ready.url]);
  const code = await exp.exited;
  if (code !== 0) throw new Error(`export failed: ${exp.stderr()}`);
  const cliMs = performance.now() - t;
  console.log(`export, merchant-kit emulator export --out (process start to file written): ${cliMs.toFixed(0)} ms, ${(statSync(file).size / 1e6).toFixed(1)} MB`);

  const plain = await startEmulator();
  await plain.stop();
  const restored = await startEmulator(['--from', file]);
  const test = restored.ready.stores.find((s) => s.environment === 'test');
  const check = await call(`${restored.ready.sandbox_base_url}/orders?limit=1`, 'GET', test.credential);
  await restored.stop();
  if (!check.data.length) throw new Error('the restored emulator has no orders');
  console.log(`restore, merchant-kit emulator start --from until ready: ${restored.ms.toFixed(0)} ms (a plain start: ${plain.ms.toFixed(0)} ms; restore itself ≈ ${(restored.ms - plain.ms).toFixed(0)} ms)`);
  const ok = httpMs < 5000 && cliMs < 5000 && restored.ms < 5000;
  console.log(ok ? 'targets met (< 5 s each)' : 'TARGET MISSED (< 5 s each)');
} finally {
  await source.stop();
  rmSync(dir, { recursive: true, force: true });
}
