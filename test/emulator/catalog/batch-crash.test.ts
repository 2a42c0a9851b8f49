import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../helpers/emulator.js';
import { ensureBuilt, runCli, type CliProcess } from '../../helpers/cli.js';
import { productWithOptions, upsertCategory } from '../../helpers/batch.js';

// The emulator as the user runs it (the built CLI), killed with SIGKILL in the middle of a batch:
// each operation commits in its own transaction, so a product is all there or not there at all.

const GROUPS = 5;
const OPTIONS = 10;
const PRODUCTS = 499;

interface Ready {
  sandbox_base_url: string;
  stores: { environment: string; credential: string }[];
}

let dataDir: string;
const children: CliProcess[] = [];

beforeAll(async () => {
  // Builds dist/ only when it is missing or older than the sources (CI's `npm ci` already built it).
  await ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'mk-batch-crash-'));
});

afterAll(() => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `merchant-kit emulator start --json` on the shared data folder and waits for its ready line. */
async function start(): Promise<{ cli: CliProcess; ready: Ready }> {
  const cli = runCli(['emulator', 'start', '--json', '--port', '0', '--data', dataDir, '--limits', 'off']);
  children.push(cli);
  return { cli, ready: JSON.parse(await cli.firstLine) as Ready };
}

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
    first.cli.child.kill('SIGKILL');
    await first.cli.exited;
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
    second.cli.child.kill('SIGTERM');
    await second.cli.exited;
  });
});
