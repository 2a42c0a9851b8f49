import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { createTestDatabase, PG_URL, type TestDatabase } from '../../helpers/postgres.js';
import { controlCall } from '../../helpers/tokens.js';

// DESIGN, Storage and the team sandbox: ids never repeat across the processes or restarts of one
// sandbox, `--seed` included. Issue 24 (high): two processes started with `--seed 7 --clock manual`
// on one database drew the same ids (one random stream, one frozen instant); the second process's
// first store collided with the demo store (500), its next one took the live demo store's id.

const ADMIN = 'admin-token-de-ids-sembrados';
const OPTIONS = { memory: false, adminToken: ADMIN, seed: 7, clock: 'manual' as const };

describe.skipIf(!PG_URL)('ids of processes started with one --seed on one PostgreSQL database', () => {
  let database: TestDatabase;
  const running: TestEmulator[] = [];
  const start = async () => {
    const emu = await startTestEmulator({ ...OPTIONS, databaseUrl: database.url });
    running.push(emu);
    return emu;
  };
  /** Every store and integration id the sandbox holds, both environments. */
  const everyId = async (emu: TestEmulator): Promise<string[]> => {
    const state = (await controlCall(emu, 'GET', '/state', ADMIN)).body.data;
    return state.environments.flatMap((e: { stores: { id: string; integrations: { id: string }[] }[] }) =>
      e.stores.flatMap((s) => [s.id, ...s.integrations.map((i) => i.id)]),
    );
  };
  const newStores = async (emu: TestEmulator, environments: ('test' | 'live')[]) => {
    const made: { status: number; ids: string[] }[] = [];
    for (const environment of environments) {
      const res = await controlCall(emu, 'POST', '/stores', ADMIN, { environment });
      made.push({ status: res.status, ids: res.status === 201 ? [res.body.data.store.id, res.body.data.integration.id] : [] });
    }
    return made;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const emu of running) await emu.close();
    await database?.drop();
  });

  it('makes stores on a second process with ids that no store of the sandbox has (201, never a 500 or the live demo store)', async () => {
    const one = await start();
    const two = await start();
    const before = await everyId(one);
    const made = await newStores(two, ['test', 'test', 'live', 'test']);
    expect(made.map((m) => m.status)).toEqual([201, 201, 201, 201]);
    const ids = made.flatMap((m) => m.ids);
    expect(ids.filter((id) => before.includes(id))).toEqual([]);
    // And the first process, drawing on: none of its ids is one the second already gave.
    const more = await newStores(one, ['test', 'live', 'test']);
    expect(more.map((m) => m.status)).toEqual([201, 201, 201]);
    const all = [...before, ...ids, ...more.flatMap((m) => m.ids)];
    expect(new Set(all).size).toBe(all.length);
    expect((await everyId(two)).sort()).toEqual([...all].sort());
  });

  it('makes new ids after a restart of every process with the same --seed on the same database', async () => {
    for (const emu of running.splice(0)) await emu.close();
    const before = await (async () => {
      const again = await start();
      return everyId(again);
    })();
    const made = await newStores(running[0]!, ['test', 'live', 'test']);
    expect(made.map((m) => m.status)).toEqual([201, 201, 201]);
    const all = [...before, ...made.flatMap((m) => m.ids)];
    expect(new Set(all).size).toBe(all.length);
  });
});
