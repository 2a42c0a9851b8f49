import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

// DESIGN, Storage and the team sandbox: everywhere, a body nested deeper than 1,000 levels is refused
// before parsing with 400 malformed_json. Issue 24 (medium 4): 5 MB of 2.5 million nested arrays
// with a valid credential blocked the event loop 9–14 s (the parse, then the emulator's own walks),
// and 120 such requests a minute were allowed.

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.close());

/** `{"name":[[…"x"…]]}`: an object whose `name` holds arrays down to `depth` levels in all (the object counts). */
const nested = (depth: number, open = '[', close = ']') => `{"name":${open.repeat(depth - 1)}"x"${close.repeat(depth - 1)}}`;
/** Objects in objects: `{"a":{"a":…{}…}}`, `depth` levels. */
const objects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

const putCategory = (body: string) =>
  emu.api('PUT', '/catalog/categories/CAT-DEEP', { rawBody: body, headers: { 'content-type': 'application/json' } });
const controlOrder = (body: string) =>
  request(`${emu.running.admin_url}/orders`, 'POST', { rawBody: body, headers: { 'content-type': 'application/json' } });

describe('a JSON body nested deeper than 1,000 levels', () => {
  it.each([
    ['arrays in an object', nested(1001)],
    ['objects in objects', objects(1001)],
    ['arrays and objects in turn', `{"a":${'[{"b":'.repeat(500)}1${'}]'.repeat(500)}}`],
  ])('answers 400 malformed_json on the API to %s', async (_name, body) => {
    const res = await putCategory(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
    expect(res.body.error.message).toContain('1000');
  });

  it('reads a body nested exactly 1,000 levels (the contract answers it: 422 for the wrong type of `name`)', async () => {
    expect((await putCategory(nested(1000))).status).toBe(422);
    expect((await putCategory(objects(1000))).body.error.code).toBe('validation_failed');
  });

  it('counts brackets inside strings as text, never as levels (escaped quotes included)', async () => {
    expect((await putCategory('{"name":"Bebidas"}')).status).toBeLessThan(300);
    const product = { name: `Caja ${'['.repeat(100)}`, description: `${'['.repeat(995)}"\\${'{'.repeat(3)}`, price: '1000', category_external_id: 'CAT-DEEP' };
    const res = await emu.api('PUT', '/catalog/products/P-BRACKETS', { body: product });
    expect(res.status).toBe(201);
    const listed = await emu.api('GET', '/catalog/products?limit=200');
    expect(listed.body.data.find((p: { external_id: string }) => p.external_id === 'P-BRACKETS').description).toBe(product.description);
  });

  it('answers 400 malformed_json on the control API', async () => {
    const res = await controlOrder(`{"store_id":"${emu.test.store_id}","items":${'['.repeat(1001)}${']'.repeat(1001)}}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
  });

  it('answers 400 malformed_json to 5 MB of nested arrays under an object', async () => {
    const depth = 2_499_990;
    const res = await putCategory(`{"name":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
  });
});

// Issue 26's route for integrators takes JSON without a token: the same bound, before any parse.
describe('a JSON access request nested deeper than 1,000 levels', () => {
  let open: TestEmulator;
  beforeAll(async () => {
    open = await startTestEmulator({ adminToken: 'nesting-admin-token-0123456789', accessRequests: true });
  });
  afterAll(() => open?.close());

  it('answers 400 malformed_json on POST /_emulator/access-requests (no token needed to send it)', async () => {
    const res = await request(`${open.running.admin_url}/access-requests`, 'POST', { rawBody: nested(1001), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('malformed_json');
    expect(res.body.error.message).toContain('1000');
  });
});
