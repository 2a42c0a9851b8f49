import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { seedMenu, simulate } from '../helpers/orders.js';

// issue 14, "Docs that a person can paste": the README's `ORDER_ID=$(… | node -e 'process.stdin.on("data",
// …)')` parsed each chunk of the pipe as JSON and broke once the list spanned several chunks (40
// pending orders). The documented line, taken from the README as written, must read the whole list.

// Asynchronous: the emulator answering the commands runs in this process.
const run = promisify(execFile);

let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator({ clock: 'system' });
  await seedMenu(emu);
  for (let i = 0; i < 60; i++) await simulate(emu);
  dir = mkdtempSync(join(tmpdir(), 'merchant-kit-readme-'));
  mkdirSync(join(dir, '.bin'));
  // `npx --no-install merchant-kit` as the repo's built bin, as in a clone after `npm install`.
  writeFileSync(join(dir, '.bin', 'npx'), `#!/bin/sh\nwhile [ "$1" = "--no-install" ]; do shift; done\n[ "$1" = "merchant-kit" ] || exit 127\nshift\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(dir, '.bin', 'npx'), 0o755);
});

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The README's line that sets ORDER_ID, as written. */
function documentedLine(): string {
  const line = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').find((l) => l.startsWith('ORDER_ID=$('));
  if (!line) throw new Error('README.md has no ORDER_ID=$(…) line');
  return line;
}

const env = () => ({
  PATH: `${join(dir, '.bin')}:${process.env.PATH}`,
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, '.config'),
  NO_COLOR: '1',
  MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url,
  MERCHANT_KIT_CREDENTIAL: emu.test.credential,
});

describe('the README reads JSON from a pipe whole', () => {
  it('sets ORDER_ID to the first pending order with 60 pending orders, whose list spans several pipe chunks', async () => {
    const { stdout: json } = await run('bash', ['-c', 'npx --no-install merchant-kit orders list --ack-status pending --json'], { cwd: dir, env: env(), maxBuffer: 16 << 20 });
    const listed = JSON.parse(json) as { id: string }[];
    expect(listed.length).toBeGreaterThanOrEqual(40);
    // More than a pipe's 64 KiB: the reader gets it in several `data` events.
    expect(Buffer.byteLength(json)).toBeGreaterThan(65_536);
    const script = `set -eo pipefail\n${documentedLine()}\nprintf '%s' "$ORDER_ID"`;
    const { stdout: orderId } = await run('bash', ['--noprofile', '--norc', '-c', script], { cwd: dir, env: env() });
    expect(orderId).toBe(listed[0]!.id);
  });
});
