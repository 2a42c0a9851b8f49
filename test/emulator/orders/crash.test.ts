import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../helpers/emulator.js';
import { ensureBuilt } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import type { ReadyInfo } from '../../../emulator/server.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'mk-crash-'));
}, 120_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the built CLI on the data folder and resolves with its ready line. */
function start(): Promise<{ child: ChildProcess; ready: ReadyInfo }> {
  const child = spawn(process.execPath, ['bin/merchant-kit.js', 'emulator', 'start', '--json', '--port', '0', '--limits', 'off', '--data', dataDir], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`emulator exited early (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, ready: JSON.parse(line) }));
  });
}

const killed = (child: ChildProcess) => new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));

async function readAll(base: string, credential: string, path: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  const events = path.startsWith('/events');
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = `${base}${path}${sep}limit=200${cursor ? `&${events ? 'after' : 'cursor'}=${cursor}` : ''}`;
    const res = await request(url, 'GET', { credential });
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    out.push(...res.body.data);
    cursor = res.body.next_cursor;
    if (events ? !res.body.has_more : cursor === null) return out;
  }
}

describe('SIGKILL while simulating orders', () => {
  it('never leaves an order without its order.created event nor an event without its order', async () => {
    const first = await start();
    const store = first.ready.stores.find((s) => s.environment === 'test')!;
    const base = first.ready.sandbox_base_url;
    const put = (path: string, body: unknown) => request(`${base}${path}`, 'PUT', { credential: store.credential, body });
    await put('/catalog/categories/CAT-1', { name: 'Menú' });
    await put('/catalog/products/P-1', { name: 'Empanada', category_external_id: 'CAT-1', price: '5000' });

    // Keep several simulations in flight and kill the process in the middle of them.
    let stop = false;
    let made = 0;
    const loop = async () => {
      while (!stop) {
        const res = await request(`${first.ready.admin_url}/orders`, 'POST', { body: { store_id: store.store_id } }).catch(() => null);
        if (!res) return;
        if (res.status === 201) made++;
      }
    };
    const loops = Array.from({ length: 4 }, loop);
    await waitFor(() => made >= 40, () => `40 simulated orders, ${made} so far`, { intervalMs: 5 });
    first.child.kill('SIGKILL');
    stop = true;
    await killed(first.child);
    await Promise.all(loops);

    const second = await start();
    const base2 = second.ready.sandbox_base_url;
    const orders = await readAll(base2, store.credential, '/orders');
    const created = await readAll(base2, store.credential, '/events?types=order.created');
    expect(orders.length).toBeGreaterThanOrEqual(made);
    expect(created.map((e) => e.data.order.id).sort()).toEqual(orders.map((o) => o.id).sort());
    expect(orders.map((o) => o.number)).toEqual(orders.map((_, i) => i + 1));
    second.child.kill('SIGTERM');
    await killed(second.child);
  }, 60_000);
});
