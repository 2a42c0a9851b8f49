import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';

// DESIGN, Storage and the team sandbox: a 413 is readable by a client still writing. Issue 24 (low):
// a body over 5 MB was answered 413 and the connection closed at once; a client that was still
// writing its body got EPIPE or ECONNRESET instead of the answer (the unread bytes make the kernel
// reset the connection, which throws away the answer waiting in the client's buffer).

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.close());

interface RawExchange {
  /** Everything the server sent, read only once the whole body was written. */
  text: string;
  /** The socket error the client met, if any (EPIPE, ECONNRESET). */
  error: string | null;
  written: number;
}

/**
 * A client that writes its whole body before it reads anything (as a simple client does: write the
 * request, then read the answer), in 64 KB chunks, waiting for the socket to drain between them.
 */
function sendWhole(path: string, headers: Record<string, string>, total: number): Promise<RawExchange> {
  const url = new URL(emu.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let error: string | null = null;
    let written = 0;
    socket.pause();
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('latin1'), error, written }));
    socket.on('connect', async () => {
      const head = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
      socket.write(head);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      while (written < total && !socket.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - written));
        written += piece.length;
        if (!socket.write(piece)) await new Promise((r) => socket.once('drain', r).once('close', r));
      }
      // Now read the answer.
      socket.on('data', (d: Buffer) => chunks.push(d));
      socket.resume();
      if (!socket.destroyed) socket.end();
    });
  });
}

const SIX_MB = 6_000_000;

describe('a body over 5 MB from a client still writing it', () => {
  it.each([
    ['the API', () => `${new URL(emu.running.sandbox_base_url).pathname}/catalog/batch`, () => ({ authorization: `Bearer ${emu.test.credential}`, 'idempotency-key': `big-${Date.now()}` })],
    ['the control API', () => '/_emulator/orders', () => ({})],
  ])('reads 413 payload_too_large on %s once it has written its body (Content-Length)', async (_name, path, extra) => {
    const res = await sendWhole(path(), { ...extra(), 'content-type': 'application/json', 'content-length': String(SIX_MB) }, SIX_MB);
    expect(res.error).toBeNull();
    expect(res.written).toBe(SIX_MB);
    expect(res.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(res.text).toContain('"code":"payload_too_large"');
  });

  it('reads 413 payload_too_large once it has written a chunked body past 5 MB', async () => {
    const url = new URL(emu.url);
    const res = await new Promise<RawExchange>((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      const chunks: Buffer[] = [];
      let error: string | null = null;
      let written = 0;
      socket.pause();
      socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
      socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('latin1'), error, written }));
      socket.on('connect', async () => {
        socket.write(`POST /_emulator/orders HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
        const piece = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 0x20), Buffer.from('\r\n')]);
        while (written < SIX_MB && !socket.destroyed) {
          written += 0x10000;
          if (!socket.write(piece)) await new Promise((r) => socket.once('drain', r).once('close', r));
        }
        if (!socket.destroyed) socket.write('0\r\n\r\n');
        socket.on('data', (d: Buffer) => chunks.push(d));
        socket.resume();
        if (!socket.destroyed) socket.end();
      });
    });
    expect(res.error).toBeNull();
    expect(res.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(res.text).toContain('"code":"payload_too_large"');
  });
});
