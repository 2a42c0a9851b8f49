import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, TEST_STORE, type TestEmulator } from '../../helpers/emulator.js';
import { asStore, newStore } from '../../helpers/stores.js';
import { realTimePassed } from '../../helpers/wait.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('clock', () => {
  it('GET /_emulator/clock shows now, mode and offset', async () => {
    const res = await emu.control('GET', '/clock');
    expect(res.body.data).toEqual({ now: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*[+-]\d{2}:\d{2}$/), mode: 'manual', offset_seconds: expect.any(Number) });
  });

  it('stands still until advanced, then moves by exactly the seconds given', async () => {
    const before = await emu.control('GET', '/clock');
    await realTimePassed(Date.now(), 20);
    const still = await emu.control('GET', '/clock');
    expect(still.body.data.now).toBe(before.body.data.now);
    const moved = await emu.control('POST', '/clock/advance', { seconds: 90 });
    expect(moved.status).toBe(200);
    expect(Date.parse(moved.body.data.now) - Date.parse(before.body.data.now)).toBe(90_000);
  });

  it.each([[-1], [1.5], ['10']])('answers 422 for seconds %j', async (seconds) => {
    const res = await emu.control('POST', '/clock/advance', { seconds });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0].field).toBe('seconds');
  });
});

describe('GET /_emulator/state', () => {
  it('lists environments, stores, integrations with settings, scopes, status and credentials, and the clock', async () => {
    const res = await emu.control('GET', '/state');
    expect(res.status).toBe(200);
    const { clock, environments } = res.body.data;
    expect(clock.mode).toBe('manual');
    expect(environments.map((e: { name: string }) => e.name).sort()).toEqual(['live', 'test']);
    const test = environments.find((e: { name: string }) => e.name === 'test');
    expect(test.base_path).toBe('/sandbox/v1');
    const store = test.stores.find((s: { id: string }) => s.id === emu.test.store_id);
    expect(store).toMatchObject({ environment: 'test', suspended: false, accepting_switch: true });
    expect(store.integrations).toHaveLength(1);
    expect(store.integrations[0]).toMatchObject({
      id: emu.test.integration_id,
      scopes: expect.arrayContaining(['store:read', 'webhooks:manage']),
      settings: expect.objectContaining({ catalog_mode: 'erp_managed' }),
      status: expect.stringMatching(/^(inactive|active)$/),
      credentials: [{ key_id: emu.test.credential.split('.')[0], created_at: expect.any(String), expires_at: null, revoked_at: null }],
    });
    expect(JSON.stringify(res.body)).not.toContain('svs_');
  });
});

describe('POST /_emulator/reset', () => {
  it('returns to the seeded state with the ready line credentials still valid', async () => {
    const made = await newStore(emu);
    await emu.control('POST', `/integrations/${emu.test.integration_id}/credentials`, { overlap_hours: 0 });
    await emu.control('PATCH', `/stores/${emu.live.store_id}`, { suspended: true });
    await emu.control('POST', '/faults', { path: '/v1/**', status: 500, times: 100 });
    await emu.control('POST', '/clock/advance', { seconds: 3600 });
    expect((await emu.api('GET', '/me')).status).toBe(401);

    const res = await emu.control('POST', '/reset');
    expect(res.status).toBe(200);
    expect(res.body.data.clock.offset_seconds).toBeLessThan(5);

    const me = await emu.api('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.data.store.id).toBe(emu.test.store_id);
    expect(me.body.data.integration.id).toBe(emu.test.integration_id);
    expect(me.body.data.integration.credential.expires_at).toBeNull();
    expect((await emu.liveApi('GET', '/store')).status).toBe(200);
    expect((await asStore(emu, made)('GET', '/me')).status).toBe(401);
    const state = await emu.control('GET', '/state');
    const ids = state.body.data.environments.flatMap((e: { stores: { id: string }[] }) => e.stores.map((s) => s.id)).sort();
    expect(ids).toEqual([emu.live.store_id, emu.test.store_id].sort());
  });

  // On PostgreSQL every request, and every change another process announces, reads the sandbox's
  // shared state; one read that started before the reset and answers after it must not put the
  // clock back where the reset took it from (on SQLite there is no shared state to read).
  it.runIf(TEST_STORE === 'postgres')('keeps the clock a reset moved when a read of the shared state from before the reset answers after it', async () => {
    const emulator = emu.running.emulator;
    await emu.control('POST', '/clock/advance', { seconds: 3600 });
    const coordination = emulator.storage.coordination as { sharedState: () => unknown };
    const real = coordination.sharedState.bind(coordination);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    coordination.sharedState = () => {
      coordination.sharedState = real;
      return Promise.resolve(real()).then(async (state) => {
        await gate;
        return state;
      });
    };
    const stale = emulator.sync();
    const reset = await emu.control('POST', '/reset');
    expect(reset.body.data.clock.offset_seconds).toBeLessThan(5);
    release();
    await stale;
    // The process's own clock, before any other request reads the shared state again.
    expect(emulator.clock.offsetMs()).toBeLessThan(5_000);
    expect((await emu.control('GET', '/clock')).body.data.offset_seconds).toBeLessThan(5);
  });
});
