import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { ApiError, EmulatorControl, MerchantClient } from '../../src/client/index.js';

let emu: TestEmulator;
let client: MerchantClient;
beforeAll(async () => {
  emu = await startTestEmulator();
  client = new MerchantClient({ baseUrl: emu.running.sandbox_base_url, credential: emu.test.credential });
});
afterAll(async () => {
  await client?.close();
  await emu?.close();
});

describe('MerchantClient simple path', () => {
  it('reads GET /me with the credential', async () => {
    const me = await client.me();
    expect(me.store.id).toBe(emu.test.store_id);
  });
  it('rejects a missing order with ApiError not_found and its request id', async () => {
    const error = await client.orders.get('ord_01JD0000000000000000000000').catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(404);
    expect(error.code).toBe('not_found');
    expect(error.requestId).toMatch(/^req_/);
  });
  it('EmulatorControl answers health from an API base URL', async () => {
    const control = EmulatorControl.fromBaseUrl(emu.running.sandbox_base_url);
    expect(await control.isEmulator()).toBe(true);
    await control.close();
  });
});
