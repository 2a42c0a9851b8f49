import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorControl } from '../../src/client/index.js';
import { describeError, ExitError, rememberTarget } from '../../src/cli/errors.js';
import { detectEmulator } from '../../src/cli/require-emulator.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// issue 14: an emulator that is down is reported as unreachable ("is the emulator running?"), never
// as "not an emulator" or "a real environment"; a server that answers and is not one is.

let emu: TestEmulator;
let other: http.Server;
let otherUrl: string;
let downUrl: string;

beforeAll(async () => {
  emu = await startTestEmulator({ clock: 'system' });
  other = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"No existe.","request_id":"req_x"}}'));
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  const down = http.createServer();
  await new Promise<void>((r) => down.listen(0, '127.0.0.1', () => r()));
  downUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
  await new Promise<void>((r) => down.close(() => r()));
});

afterAll(async () => {
  await emu?.close();
  other?.close();
});

async function withControl<T>(root: string, fn: (control: EmulatorControl) => Promise<T>): Promise<T> {
  const control = new EmulatorControl(root);
  try {
    return await fn(control);
  } finally {
    await control.close();
  }
}

describe('detectEmulator', () => {
  it('is true for an emulator, false for a server that answers but is not one (a real environment)', async () => {
    expect(await withControl(emu.url, (c) => detectEmulator(c))).toBe(true);
    expect(await withControl(otherUrl, (c) => detectEmulator(c))).toBe(false);
  });

  it('against an emulator that is down, fails with the network error: "is the emulator running?", not "a real environment"', async () => {
    const error = await withControl(downUrl, (c) => detectEmulator(c)).catch((e) => e);
    expect(error).not.toBeInstanceOf(ExitError);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    rememberTarget({ baseUrl: `${downUrl}/sandbox/v1`, environment: 'test' });
    const line = describeError(error).lines.join('\n');
    rememberTarget(undefined);
    expect(line).toMatch(/could not reach .* \(ECONNREFUSED\): is the emulator running\?/);
    expect(line).not.toMatch(/not an emulator|not a merchant-kit emulator|real environment/);
  });

  it("EmulatorControl.probe() tells 'unreachable' apart from 'not_emulator'", async () => {
    expect(await withControl(downUrl, (c) => c.probe())).toBe('unreachable');
    expect(await withControl(otherUrl, (c) => c.probe())).toBe('not_emulator');
    expect(await withControl(emu.url, (c) => c.probe())).toBe('emulator');
  });
});
