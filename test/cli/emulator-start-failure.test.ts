import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPrivateCli, cli } from '../helpers/cli-core.js';
import { DataDirBefore } from '../../src/cli/commands/emulator/start-failure.js';

// issue 27: a start on a busy port had already made the data folder (so the demo credentials it made
// were never shown, and every later start showed key ids only), and said so without `error:` or what
// to do. A failed start leaves nothing behind and names the way out.

const dirs: string[] = [];
const servers: Server[] = [];
const pids: number[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mk-start-failure-'));
  dirs.push(dir);
  return dir;
}

/** A port on 127.0.0.1 that another program holds. */
async function takenPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

const hint = (port: number) =>
  `hint: start on another port (--port ${port + 1}, or --port 0 for any free one), or stop the emulator that holds it (Ctrl+C in its terminal, or merchant-kit emulator stop [--data DIR])`;

let removeBuild: () => void = () => undefined;
beforeAll(async () => {
  removeBuild = await buildPrivateCli();
}, 180_000);
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
});
afterAll(() => {
  removeBuild();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('emulator start on a port another program holds', () => {
  it('says so in one error line and a hint (--port N, emulator stop), exit 1, and makes no data folder', async () => {
    const port = await takenPort();
    const data = join(tempDir(), 'new', 'emulator');
    const r = await cli(['emulator', 'start', '--port', String(port), '--data', data]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: port ${port} of 127.0.0.1 is in use (another emulator, or another program, listens there)\n${hint(port)}\n`);
    expect(existsSync(join(data, '..'))).toBe(false);
  });

  it('with --json: the one JSON error object, the hint in `hint`', async () => {
    const port = await takenPort();
    const r = await cli(['emulator', 'start', '--port', String(port), '--memory', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        status: null, code: 'command_failed', message: `port ${port} of 127.0.0.1 is in use (another emulator, or another program, listens there)`,
        details: null, request_id: null, hint: hint(port).slice('hint: '.length),
      },
    });
  });

  it('with --detach: the same lines, and neither a data folder nor a log is left', async () => {
    const port = await takenPort();
    const parent = tempDir();
    const data = join(parent, 'emulator');
    const r = await cli(['emulator', 'start', '--detach', '--port', String(port), '--data', data], { timeoutMs: 90_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: port ${port} of 127.0.0.1 is in use (another emulator, or another program, listens there)\n${hint(port)}\n`);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('the next start of the folder, on a free port, is its first: it prints the credentials in full', async () => {
    const port = await takenPort();
    const data = join(tempDir(), 'emulator');
    expect((await cli(['emulator', 'start', '--port', String(port), '--data', data])).code).toBe(1);
    // The banner of the first start of a folder, then stopped (detached so the test can read it whole).
    const r = await cli(['emulator', 'start', '--detach', '--port', '0', '--data', data], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    pids.push(Number(/\(pid (\d+)\)/.exec(r.stdout)![1]));
    expect(r.stdout).toContain('Demo stores (credentials are shown once, here; save them in a profile):');
    expect(r.stdout).toMatch(/^ {8}credential svk_test_\w+\.svs_test_\w+$/m);
  });
});

describe('DataDirBefore: a failed start puts the data folder back', () => {
  it('removes a folder the start made, with the parents it made', () => {
    const root = tempDir();
    const data = join(root, '.merchant-kit', 'emulator');
    const before = DataDirBefore.of(data);
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'test.sqlite'), 'x');
    expect(before.undo()).toBe(true);
    expect(readdirSync(root)).toEqual([]);
  });

  it('empties a folder that was empty', () => {
    const data = tempDir();
    const before = DataDirBefore.of(data);
    writeFileSync(join(data, 'seed-credentials.json'), '[]');
    mkdirSync(join(data, '.restore-staging'));
    expect(before.undo()).toBe(true);
    expect(existsSync(data)).toBe(true);
    expect(readdirSync(data)).toEqual([]);
  });

  it('leaves a folder that held something as it is (its databases were there before, maybe another emulator\'s)', () => {
    const data = tempDir();
    writeFileSync(join(data, 'test.sqlite'), 'x');
    const before = DataDirBefore.of(data);
    writeFileSync(join(data, 'test.sqlite-wal'), 'y');
    expect(before.undo()).toBe(false);
    expect(readdirSync(data).sort()).toEqual(['test.sqlite', 'test.sqlite-wal']);
  });
});
