import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../emulator/server.js';
import { decodeBundle } from '../../../emulator/bundle/envelope.js';
import { rewriteBundle } from '../../helpers/bundle.js';
import type { Bundle } from '../../../emulator/bundle/format.js';
import { request } from '../../helpers/emulator.js';

// issue 15, item 2: `start --from FILE --data DIR` is all or nothing. The restored folder is built
// beside the data (.restore-staging), committed by one rename (.restore-swap), then swapped in; the
// next start finishes a committed swap and discards an uncommitted staging folder. These tests make
// each moment of a crash by hand; test/cli/bundle-crash.test.ts kills a real restore.

const root = mkdtempSync(join(tmpdir(), 'mk-stage-'));
let n = 0;
const folder = () => join(root, `d${++n}`);
let bytes: Buffer;
let bundle: Bundle;
let bundleStores: string[];

const post = (emu: RunningEmulator, path: string, body: unknown) =>
  request(`${emu.admin_url}${path}`, 'POST', { body, headers: { 'content-type': 'application/json' } });

/** Stores and orders per environment, read through the ready line's demo credentials. */
async function signature(emu: RunningEmulator) {
  const state = (await request(`${emu.admin_url}/state`, 'GET')).body.data;
  const out: Record<string, { stores: string[]; orders: number }> = {};
  for (const env of state.environments) {
    const seed = emu.stores.find((s) => s.environment === env.name)!;
    const base = env.name === 'test' ? emu.sandbox_base_url : emu.live_base_url;
    const orders = await request(`${base}/orders?limit=200`, 'GET', { credential: seed.credential });
    expect(orders.status, `${env.name} demo credential`).toBe(200);
    out[env.name] = { stores: env.stores.map((s: any) => s.id).sort(), orders: orders.body.data.length };
  }
  return out;
}

/** A folder whose state has `orders` simulated orders in each environment. */
async function stateWith(data: string | undefined, orders: { test: number; live: number }): Promise<RunningEmulator> {
  const emu = await startEmulator({ port: 0, clock: 'manual', ...(data ? { data } : { memory: true }) });
  for (const env of ['test', 'live'] as const) {
    const store = emu.stores.find((s) => s.environment === env)!;
    await post(emu, `/stores/${store.store_id}/products`, { name: 'Chipa', price: '5000' });
    for (let i = 0; i < orders[env]; i++) expect((await post(emu, '/orders', { store_id: store.store_id })).status).toBe(201);
  }
  return emu;
}

let oldFolder: string;
let oldSignature: Awaited<ReturnType<typeof signature>>;
let newSignature: Awaited<ReturnType<typeof signature>>;

beforeAll(async () => {
  const source = await stateWith(undefined, { test: 3, live: 2 });
  const res = await fetch(`${source.admin_url}/export`);
  bytes = Buffer.from(await res.arrayBuffer());
  bundle = decodeBundle(bytes);
  bundleStores = source.stores.map((s) => s.store_id);
  await source.close();
  oldFolder = folder();
  const old = await stateWith(oldFolder, { test: 1, live: 0 });
  oldSignature = await signature(old);
  await old.close();
  const restored = await startEmulator({ port: 0, data: copyOfOld(), from: { bundle, file: 'state.json.gz' } });
  newSignature = await signature(restored);
  await restored.close();
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Leaves `file-wal` as a crash would: committed pages of the old database not yet checkpointed. */
function leaveStaleLog(file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.prepare("UPDATE stores SET name = 'Cambiada por el registro viejo'").run();
  const log = readFileSync(`${file}-wal`);
  db.close(); // checkpoints and removes the log: it is put back as it was before
  writeFileSync(`${file}-wal`, log);
  expect(log.length).toBeGreaterThan(0);
}

function copyOfOld(): string {
  const data = folder();
  cpSync(oldFolder, data, { recursive: true });
  return data;
}

describe('emulator start --from with a data folder', () => {
  it('serves the bundle\'s state, and a restart of the folder shows its demo stores with working credentials and no second demo store', async () => {
    expect(newSignature.test).toEqual({ stores: [bundleStores[0]], orders: 3 });
    expect(newSignature.live).toEqual({ stores: [bundleStores[1]], orders: 2 });
    const data = copyOfOld();
    const first = await startEmulator({ port: 0, data, from: { bundle, file: 'state.json.gz' } });
    const restoredCredentials = first.stores;
    await first.close();
    for (let restart = 0; restart < 2; restart++) {
      const again = await startEmulator({ port: 0, data });
      expect(await signature(again)).toEqual(newSignature);
      expect(again.stores.map((s) => s.credential).sort()).toEqual(restoredCredentials.map((s) => s.credential).sort());
      expect(again.notices).toEqual([]);
      await again.close();
    }
    expect(readdirSync(data).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('takes the bundle as a file too, like --from', async () => {
    const file = join(root, 'state.json.gz');
    writeFileSync(file, bytes);
    const emu = await startEmulator({ port: 0, data: copyOfOld(), from: file });
    expect(await signature(emu)).toEqual(newSignature);
    await emu.close();
    writeFileSync(file, bytes.subarray(0, 100));
    await expect(startEmulator({ port: 0, memory: true, from: file })).rejects.toThrow(/truncated or damaged/);
  });

  it('leaves the folder as it was when the bundle\'s rows are refused while loading, with no staging folder left', async () => {
    const data = copyOfOld();
    const broken = decodeBundle(rewriteBundle(bytes, (e) => {
      const stores = e.payload.environments.live.tables.stores;
      stores.rows.push(stores.rows[0].slice()); // a duplicate key, found only while loading
    }));
    await expect(startEmulator({ port: 0, data, from: { bundle: broken, file: 'broken.json.gz' } })).rejects.toThrow(/live: the bundle's stores rows cannot be loaded/);
    expect(readdirSync(data).filter((f) => f.startsWith('.'))).toEqual([]);
    const after = await startEmulator({ port: 0, data });
    expect(await signature(after)).toEqual(oldSignature);
    await after.close();
  });
});

describe('the start after a crash during a restore', () => {
  /** What a restore builds, as it stands once staged: the files of a restored folder. */
  async function stagedFiles(): Promise<string> {
    const made = copyOfOld();
    const emu = await startEmulator({ port: 0, data: made, from: { bundle, file: 'state.json.gz' } });
    await emu.close();
    return made;
  }

  it('discards a staging folder that was never committed: the previous state, both environments, with a note', async () => {
    const data = copyOfOld();
    const staging = join(data, '.restore-staging');
    mkdirSync(staging);
    writeFileSync(join(staging, 'restore.json'), JSON.stringify({ from: 'state.json.gz' }));
    cpSync(join(await stagedFiles(), 'test.sqlite'), join(staging, 'test.sqlite'));
    const emu = await startEmulator({ port: 0, data });
    expect(emu.notices).toEqual([expect.stringMatching(/discarded the restore from state\.json\.gz, interrupted before it was complete; .* keeps its previous state/)]);
    expect(await signature(emu)).toEqual(oldSignature);
    expect(existsSync(staging)).toBe(false);
    await emu.close();
  });

  it.each([
    ['before any file was moved', [] as string[]],
    ['after the test database was moved', ['test.sqlite']],
    ['after both databases were moved', ['test.sqlite', 'live.sqlite']],
    ['after every file but the seeds was moved', ['test.sqlite', 'live.sqlite', 'clock.json']],
  ])('finishes a committed swap interrupted %s: the bundle\'s state, both environments, with a note', async (_when, moved) => {
    const data = copyOfOld();
    // The old live database's log, as a crash leaves it, must not be replayed into the new file.
    leaveStaleLog(join(data, 'live.sqlite'));
    const swap = join(data, '.restore-swap');
    mkdirSync(swap);
    const staged = await stagedFiles();
    writeFileSync(join(swap, 'restore.json'), JSON.stringify({ from: 'state.json.gz' }));
    for (const file of ['test.sqlite', 'live.sqlite', 'clock.json', 'seed-credentials.json']) cpSync(join(staged, file), join(swap, file));
    // Moved as the restore moves them: a database's old log goes first.
    for (const file of moved) {
      rmSync(join(data, `${file}-wal`), { force: true });
      renameSync(join(swap, file), join(data, file));
    }
    const emu = await startEmulator({ port: 0, data });
    expect(emu.notices).toEqual([expect.stringMatching(/finished the restore from state\.json\.gz in .*, interrupted once it was complete/)]);
    expect(await signature(emu)).toEqual(newSignature);
    expect(existsSync(swap)).toBe(false);
    await emu.close();
  });
});
