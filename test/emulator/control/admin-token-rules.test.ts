import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/server.js';
import { request, startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { controlCall } from '../../helpers/tokens.js';

// Issue 24 (low): the admin token's own rules. `Bearer` is case-insensitive for store tokens and
// credentials but was not for the admin token (one rule now, one function); the token sent in a
// query string reached the `--verbose` log in clear; `startEmulator` took any text as the token.

const TOKEN = 'token/de+administración=largo';
let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const withHeader = (e: TestEmulator, authorization: string) => request(`${e.running.admin_url}/health`, 'GET', { headers: { authorization } });

describe('the admin token\'s Authorization header', () => {
  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('opens the control API with the scheme written %s, as a store token and a credential', async (scheme) => {
    emu = await startTestEmulator({ adminToken: TOKEN });
    expect((await withHeader(emu, `${scheme} ${TOKEN}`)).status).toBe(200);
    const made = (await controlCall(emu, 'POST', '/stores', TOKEN, { environment: 'test' })).body.data;
    expect((await withHeader(emu, `${scheme} ${made.store_token}`)).status).toBe(200);
    expect((await emu.api('GET', '/me', { credential: null, headers: { authorization: `${scheme} ${made.credential}` } })).status).toBe(200);
  });

  it('takes the same spaces after the scheme as for the other tokens, and nothing else', async () => {
    emu = await startTestEmulator({ adminToken: TOKEN });
    expect((await withHeader(emu, `Bearer   ${TOKEN}`)).status).toBe(200);
    expect((await withHeader(emu, `Bearer${TOKEN}`)).status).toBe(401);
    expect((await withHeader(emu, `Basic ${TOKEN}`)).status).toBe(401);
    expect((await withHeader(emu, `Bearer ${TOKEN}x`)).status).toBe(401);
  });
});

describe('the --verbose log and the admin token', () => {
  it('never shows the admin token sent in a query string, as is or percent-encoded', async () => {
    const log = new PassThrough();
    let text = '';
    log.on('data', (d) => (text += String(d)));
    const running = await startEmulator({ port: 0, memory: true, adminToken: TOKEN, logger: true, logStream: log });
    try {
      const base = running.admin_url;
      const auth = { authorization: `Bearer ${TOKEN}` };
      await request(`${base}/health?token=${TOKEN}`, 'GET', { headers: auth });
      await request(`${base}/health?token=${encodeURIComponent(TOKEN)}`, 'GET', { headers: auth });
      await request(`${base}/health?token=${encodeURIComponent(TOKEN).toLowerCase()}`, 'GET', { headers: auth });
      await request(`${base}/health?t=${encodeURIComponent(encodeURIComponent(TOKEN))}`, 'GET', { headers: auth });
      await request(`${base}/${encodeURIComponent(TOKEN)}`, 'GET', { headers: auth });
    } finally {
      await running.close();
    }
    expect(text).toContain('/_emulator/health');
    for (const shown of [TOKEN, encodeURIComponent(TOKEN), encodeURIComponent(TOKEN).toLowerCase(), encodeURIComponent(encodeURIComponent(TOKEN)), 'administraci']) {
      expect(text).not.toContain(shown);
    }
  });
});

describe('startEmulator({adminToken})', () => {
  it.each(['', ' ', 'x', 'fifteen-chars-x', ' padded-token-of-twenty ', 'padded-token-of-twenty\n'])('refuses %j before listening', async (adminToken) => {
    await expect(startEmulator({ port: 0, memory: true, adminToken })).rejects.toThrow(/16 characters|spaces/);
  });
});
