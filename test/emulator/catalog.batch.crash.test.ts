import { spawn, execSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/emulator.js';
import { productWithOptions, upsertCategory } from '../helpers/batch.js';

// The emulator as the user runs it (the built CLI), killed with SIGKILL in the middle of a batch:
// each operation commits in its own transaction, so a product is all there or not there at all.

const ROOT = resolve(import.meta.dirname, '../..');
const GROUPS = 5;
const OPTIONS = 10;
const PRODUCTS = 499;

interface Ready {
  sandbox_base_url: string;
  stores: { environment: string; credential: string }[];
}

let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) execSync('npx tsup', { cwd: ROOT, stdio: 'ignore' });
  dataDir = mkdtempSync(join(tmpdir(), 'mk-batch-crash-'));
}, 120_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `merchant-kit emulator start --json` and resolves with its ready line. */
function start(): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = spawn(process.execPath, ['bin/merchant-kit.js', 'emulator', 'start', '--json', '--port', '0', '--data', dataDir, '--limits', 'off'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolvePromise, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolvePromise({ child, ready: JSON.parse(line) as Ready }));
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code}) before its ready line: ${stderr}`)));
  });
}

const exited = (child: ChildProcess) => new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));

const body = {
  operations: [upsertCategory('CAT-1'), ...Array.from({ length: PRODUCTS }, (_, i) => productWithOptions(`P-${i}`, 'CAT-1', GROUPS, OPTIONS))],
};

describe('POST /catalog/batch and a crash', () => {
  it('leaves every product either complete (product, all its groups and options) or absent after SIGKILL mid-batch', async () => {
    const first = await start();
    const base = first.ready.sandbox_base_url;
    const credential = first.ready.stores.find((s) => s.environment === 'test')!.credential;
    const key = 'crash-test-batch-1';
    const inFlight = request(`${base}/catalog/batch`, 'POST', { body, credential, idempotencyKey: key }).catch(() => null);

    // The batch yields between chunks of operations, so reads get answered while it runs.
    let seen = 0;
    while (seen === 0) {
      const res = await request(`${base}/catalog/products?limit=1`, 'GET', { credential });
      seen = res.body.data.length;
    }
    first.child.kill('SIGKILL');
    await exited(first.child);
    await inFlight;

    const db = new Database(join(dataDir, 'test.sqlite'), { readonly: true });
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const products = count("SELECT COUNT(*) AS n FROM products WHERE external_id LIKE 'P-%'");
    const groups = count('SELECT COUNT(*) AS n FROM option_groups');
    const options = count('SELECT COUNT(*) AS n FROM options');
    db.close();
    expect(products).toBeGreaterThan(0);
    expect(products).toBeLessThan(PRODUCTS);
    expect(groups).toBe(products * GROUPS);
    expect(options).toBe(products * GROUPS * OPTIONS);

    // Restarted on the same data, the emulator lists only whole products…
    const second = await start();
    const listed: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await request(`${second.ready.sandbox_base_url}/catalog/products?limit=200${cursor ? `&cursor=${cursor}` : ''}`, 'GET', { credential });
      listed.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(listed).toHaveLength(products);
    for (const p of listed) {
      expect(p.option_groups).toHaveLength(GROUPS);
      for (const g of p.option_groups) expect(g.options).toHaveLength(OPTIONS);
    }

    // …and the same request, whose key the crash left unanswered, can be sent again and completes.
    const retried = await request(`${second.ready.sandbox_base_url}/catalog/batch`, 'POST', { body, credential, idempotencyKey: key });
    expect(retried.status).toBe(200);
    expect(retried.body.data.summary).toEqual({ total: PRODUCTS + 1, succeeded: PRODUCTS + 1, failed: 0 });
    expect(retried.body.data.results.filter((r: any) => r.result === 'created')).toHaveLength(PRODUCTS - products);
    second.child.kill('SIGTERM');
    await exited(second.child);
  }, 60_000);
});
