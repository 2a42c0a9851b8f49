import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/server.js';

const root = mkdtempSync(join(tmpdir(), 'mk-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

async function runIn(data: string): Promise<string[]> {
  const emu = await startEmulator({ port: 0, data, clock: 'manual' });
  // An advanced clock is kept beside the databases (clock.json): it must be owner-only too.
  await fetch(`${emu.admin_url}/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"seconds":60}' });
  const files = readdirSync(data);
  await emu.close();
  return files;
}

describe('the data folder', () => {
  it('is created 0700 with its databases, WAL files and seed credentials 0600', async () => {
    const data = join(root, 'new', 'emulator');
    const files = await runIn(data);
    expect(mode(data)).toBe(0o700);
    expect(files).toEqual(expect.arrayContaining(['live.sqlite', 'test.sqlite', 'seed-credentials.json', 'emulator.pid', 'clock.json']));
    for (const file of readdirSync(data)) expect(mode(join(data, file)), file).toBe(0o600);
  });

  it('tightens an existing folder and files of an older version to 0700/0600', async () => {
    const data = join(root, 'old');
    await runIn(data);
    chmodSync(data, 0o755);
    for (const file of readdirSync(data)) chmodSync(join(data, file), 0o644);
    await runIn(data);
    expect(mode(data)).toBe(0o700);
    for (const file of readdirSync(data).filter((f) => /sqlite|seed/.test(f))) expect(mode(join(data, file)), file).toBe(0o600);
  });

  it('leaves the mode of a folder that holds other files (--data .) and still makes its own files 0600', async () => {
    const data = join(root, 'project');
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    writeFileSync(join(data, 'README.md'), 'mine');
    await runIn(data);
    expect(mode(data)).toBe(0o755);
    expect(mode(join(data, 'test.sqlite'))).toBe(0o600);
  });

  it('writes emulator.pid while running and removes it on close', async () => {
    const data = join(root, 'pid');
    const emu = await startEmulator({ port: 0, data, clock: 'manual' });
    expect(readdirSync(data)).toContain('emulator.pid');
    expect(emu.pid).toBe(process.pid);
    await emu.close();
    expect(readdirSync(data)).not.toContain('emulator.pid');
  });
});
