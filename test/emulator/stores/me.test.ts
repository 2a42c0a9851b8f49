import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu.close());

describe('GET /me', () => {
  it('answers the integration context of the sandbox credential with environment test', async () => {
    const res = await emu.api('GET', '/me');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(res.body.data.integration.environment).toBe('test');
    expect(res.body.data.integration.credential.key_id).toBe(emu.test.credential.split('.')[0]);
    expect(res.body.data.api_version).toBe('1.0');
    expect(res.body.data.store.id).toBe(emu.test.store_id);
  });

  it('rejects a test credential on the live base path with 401 unauthenticated', async () => {
    const res = await emu.liveApi('GET', '/me', { credential: emu.test.credential });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthenticated');
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  });
});
