import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { startEmulator, type RunningEmulator } from '../../../../emulator/server.js';
import { loadClockOffset, saveClockOffset } from '../../../../emulator/adapters/sqlite/clock-file.js';
import { request } from '../../../helpers/emulator.js';

// issue 15: a data folder whose files are damaged or missing. The clock, the databases and the seed
// credentials are read at start; a file that cannot be used refuses the start, naming it, instead
// of starting silently on a wrong state (time moved back, a second demo store, a 500 later on).

const root = mkdtempSync(join(tmpdir(), 'mk-data-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const folder = () => join(root, `d${++n}`);

const control = (emu: RunningEmulator, method: string, path: string, body?: unknown) =>
  request(`${emu.admin_url}${path}`, method, { body: body ?? {}, headers: { 'content-type': 'application/json' } });

async function storesPerEnvironment(emu: RunningEmulator): Promise<Record<string, number>> {
  const state = (await request(`${emu.admin_url}/state`, 'GET')).body.data;
  return Object.fromEntries(state.environments.map((e: any) => [e.name, e.stores.length]));
}

describe('clock.json', () => {
  it.each([
    ['empty', '', /it is empty/],
    ['truncated', '{"offset_ms":72', /not valid JSON/],
    ['negative', '{"offset_ms":-7200000}', /offset_ms is negative/],
    ['non-numeric', '{"offset_ms":"7200000"}', /offset_ms is not a number/],
    ['without its offset', '{}', /has no offset_ms/],
  ])('refuses to read the file when it is %s, naming it', (_what, text, why) => {
    const dir = folder();
    saveClockOffset(dir, 1000);
    writeFileSync(join(dir, 'clock.json'), text);
    expect(() => loadClockOffset(dir)).toThrow(why);
    expect(() => loadClockOffset(dir)).toThrow(`the clock file ${join(dir, 'clock.json')} is damaged`);
  });

  it('reads a missing file as no advance', () => {
    expect(loadClockOffset(folder())).toBe(0);
  });

  it('is replaced through a synced temp file and a rename, never truncated in place', () => {
    const dir = folder();
    saveClockOffset(dir, 1000);
    const before = statSync(join(dir, 'clock.json')).ino;
    saveClockOffset(dir, 2000);
    expect(statSync(join(dir, 'clock.json')).ino).not.toBe(before);
    expect(loadClockOffset(dir)).toBe(2000);
    expect(readdirSync(dir)).toEqual(['clock.json']);
    expect(statSync(join(dir, 'clock.json')).mode & 0o777).toBe(0o600);
  });

  // The attack: an empty clock.json read as offset 0 moved time back, and a rotated credential that
  // had expired answered 200 again.
  it('refuses a start on an emptied clock.json instead of bringing an expired credential back', async () => {
    const data = folder();
    const first = await startEmulator({ port: 0, data, clock: 'manual' });
    const test = first.stores.find((s) => s.environment === 'test')!;
    expect((await control(first, 'POST', `/integrations/${test.integration_id}/credentials`, { overlap_hours: 1 })).status).toBe(201);
    await control(first, 'POST', '/clock/advance', { seconds: 2 * 3600 });
    expect((await request(`${first.sandbox_base_url}/me`, 'GET', { credential: test.credential })).status).toBe(401);
    await first.close();

    writeFileSync(join(data, 'clock.json'), '');
    await expect(startEmulator({ port: 0, data, clock: 'manual' })).rejects.toThrow(`the clock file ${join(data, 'clock.json')} is damaged (it is empty)`);
  });

  // A save that failed after the answer was an unhandled rejection: the emulator process ended.
  it('answers an advance it cannot save with 500 internal_error and keeps running; the next one is saved', async () => {
    const data = folder();
    const emu = await startEmulator({ port: 0, data, clock: 'manual' });
    try {
      mkdirSync(join(data, 'clock.json')); // a rename onto a folder fails, even for root
      const refused = await control(emu, 'POST', '/clock/advance', { seconds: 60 });
      expect(refused.status).toBe(500);
      expect(refused.body.error.code).toBe('internal_error');
      expect((await request(`${emu.admin_url}/health`, 'GET')).status).toBe(200);
      rmSync(join(data, 'clock.json'), { recursive: true });
      expect((await control(emu, 'POST', '/clock/advance', { seconds: 60 })).status).toBe(200);
      expect(loadClockOffset(data)).toBe(120_000);
    } finally {
      await emu.close();
    }
  });
});

describe('the databases', () => {
  /** Overwrites the middle of the file's pages (past the header) with garbage. */
  function damage(file: string): void {
    const bytes = readFileSync(file);
    const page = 4096;
    for (let at = 2 * page; at < bytes.length; at += page) bytes.fill(0xa5, at + 100, at + 900);
    writeFileSync(file, bytes);
  }

  async function folderWithEvents(): Promise<string> {
    const data = folder();
    const emu = await startEmulator({ port: 0, data, clock: 'manual' });
    const test = emu.stores.find((s) => s.environment === 'test')!;
    await request(`${emu.admin_url}/stores/${test.store_id}/products`, 'POST', { body: { name: 'Chipa', price: '5000' }, headers: { 'content-type': 'application/json' } });
    for (let i = 0; i < 40; i++) await control(emu, 'POST', '/orders', { store_id: test.store_id });
    await emu.close();
    return data;
  }

  it('refuses a start on a damaged database, naming the file (quick_check), never a ready line then a 500', async () => {
    const data = await folderWithEvents();
    const file = join(data, 'test.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = DELETE'); // everything in the one file
    db.close();
    damage(file);
    await expect(startEmulator({ port: 0, data })).rejects.toThrow(new RegExp(`the database ${file.replace(/[/.]/g, '\\$&')} is damaged \\(.+\\): start from a bundle`));
  });

  it('refuses a file that is not a database at all, naming it', async () => {
    const data = folder();
    const first = await startEmulator({ port: 0, data });
    await first.close();
    writeFileSync(join(data, 'live.sqlite'), 'not a database, not even close'.repeat(200));
    await expect(startEmulator({ port: 0, data })).rejects.toThrow(`the database ${join(data, 'live.sqlite')} is damaged`);
  });
});

describe('seed-credentials.json', () => {
  it.each([
    ['not JSON', '{"environment":', /not valid JSON/],
    ['not a list', '{"seeds":[]}', /not a list of stores/],
    ['an entry without its credential', '[{"environment":"test","storeId":"str_01M89MKWYXPZXJ5AG77383FJBG","integrationId":"int_01M89MKWYYJQD7Y7FNHR8SWYN7"}]', /entry 1 is not a store/],
  ])('refuses a damaged file (%s) with an error naming it, not "seeds is not iterable"', async (_what, text, why) => {
    const data = folder();
    const first = await startEmulator({ port: 0, data });
    await first.close();
    writeFileSync(join(data, 'seed-credentials.json'), text);
    const refused = startEmulator({ port: 0, data });
    await expect(refused).rejects.toThrow(`the seed file ${join(data, 'seed-credentials.json')} is damaged`);
    await expect(startEmulator({ port: 0, data })).rejects.toThrow(why);
  });

  it('adds no second demo store when it was deleted: the demo stores get new credentials that work', async () => {
    const data = folder();
    const first = await startEmulator({ port: 0, data });
    const before = first.stores;
    await first.close();
    rmSync(join(data, 'seed-credentials.json'));

    const second = await startEmulator({ port: 0, data });
    try {
      expect(await storesPerEnvironment(second)).toEqual({ live: 1, test: 1 });
      expect(second.stores.map((s) => s.store_id)).toEqual(before.map((s) => s.store_id));
      for (const s of second.stores) {
        const base = s.environment === 'test' ? second.sandbox_base_url : second.live_base_url;
        expect((await request(`${base}/me`, 'GET', { credential: s.credential })).status).toBe(200);
      }
      expect(existsSync(join(data, 'seed-credentials.json'))).toBe(true);
    } finally {
      await second.close();
    }
    const third = await startEmulator({ port: 0, data });
    expect(third.stores).toEqual(second.stores);
    await third.close();
  });
});
