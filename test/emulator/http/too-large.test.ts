import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { writeWholeThenRead } from '../../helpers/security.js';

// DESIGN, Storage and the team sandbox: a 413 is readable by a client still writing. Issue 24 (low):
// a body over 5 MB was answered 413 and the connection closed at once; a client that was still
// writing its body got EPIPE or ECONNRESET instead of the answer (the unread bytes make the kernel
// reset the connection, which throws away the answer waiting in the client's buffer).

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.close());

const SIX_MB = 6_000_000;
const head = (path: string, extra: string[]) => [`POST ${path} HTTP/1.1`, `Host: ${new URL(emu.url).host}`, 'Content-Type: application/json', ...extra].join('\r\n');

describe('a body over 5 MB from a client still writing it', () => {
  it.each([
    ['the API', () => head('/sandbox/v1/catalog/batch', [`Authorization: Bearer ${emu.test.credential}`, `Idempotency-Key: big-${Date.now()}`, `Content-Length: ${SIX_MB}`])],
    ['the control API', () => head('/_emulator/orders', [`Content-Length: ${SIX_MB}`])],
  ])('reads 413 payload_too_large on %s once it has written its body (Content-Length)', async (_name, request) => {
    const res = await writeWholeThenRead(emu.url, request(), SIX_MB);
    expect(res.error).toBeNull();
    expect(res.written).toBe(SIX_MB);
    expect(res.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(res.text).toContain('"code":"payload_too_large"');
  });

  it('reads 413 payload_too_large once it has written a chunked body past 5 MB', async () => {
    const res = await writeWholeThenRead(emu.url, head('/_emulator/orders', ['Transfer-Encoding: chunked']), SIX_MB, true);
    expect(res.error).toBeNull();
    expect(res.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(res.text).toContain('"code":"payload_too_large"');
  });

  it('reads no more than about 16 MB past the refusal: a client announcing 200 MB is cut off', async () => {
    const res = await writeWholeThenRead(emu.url, head('/_emulator/orders', ['Content-Length: 200000000']), 200_000_000);
    expect(res.error).not.toBeNull();
    expect(res.written).toBeLessThan(60_000_000);
  });
});

// Issue 26's routes for integrators (a few short fields, 4 KB at most) refuse a larger body the same
// way: the JSON route through the control API, the form's page (POST /access) through its own handler.
describe('a body over the access requests\' 4 KB from a client still writing it', () => {
  let open: TestEmulator;
  beforeAll(async () => {
    open = await startTestEmulator({ adminToken: 'too-large-admin-token-0123456789', accessRequests: true });
  });
  afterAll(() => open?.close());

  const at = (path: string, type: string) => [`POST ${path} HTTP/1.1`, `Host: ${new URL(open.url).host}`, `Content-Type: ${type}`, `Content-Length: ${SIX_MB}`].join('\r\n');

  it('reads 413 payload_too_large from POST /_emulator/access-requests once it has written its body', async () => {
    const res = await writeWholeThenRead(open.url, at('/_emulator/access-requests', 'application/json'), SIX_MB);
    expect(res.error).toBeNull();
    expect(res.written).toBe(SIX_MB);
    expect(res.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(res.text).toContain('"code":"payload_too_large"');
  });

  it('reads the form\'s 413 page from POST /access once it has written its body', async () => {
    const res = await writeWholeThenRead(open.url, at('/access', 'application/x-www-form-urlencoded'), SIX_MB);
    expect(res.error).toBeNull();
    expect(res.written).toBe(SIX_MB);
    expect(res.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(res.text).toMatch(/content-type: text\/html/i);
  });
});
