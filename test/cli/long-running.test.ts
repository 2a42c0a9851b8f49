import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runCli, waitForStderr, type CliProcess } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { scratchDir, stopAll } from '../helpers/feed.js';
import { processAlive, processGone, realTimePassed } from '../helpers/wait.js';

// issue 27: the long-running commands (listen, feed tail, emulator logs tail, proxy) print their pid,
// under --json in a first ready line, since a script cannot stop them by `$!` under npx (npx's own
// pid). And under npm, whose SIGTERM reaches only the shell it runs them in, they stop once npm is
// gone instead of running on with their port.

const SECRET = 'whsec_dGVzdC1zZWNyZXQtZm9yLWxvbmctcnVubmluZw';
let emu: TestEmulator;
let scratch: ReturnType<typeof scratchDir>;
const running: CliProcess[] = [];
const pids: number[] = [];

// The tests run at once (issue 27): one waits out three seconds of real time, the npm ones wait for
// npm; none writes to the emulator, and each stops only what it started. What is left running is
// stopped at the file's end.
beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator();
  scratch = scratchDir();
});
afterAll(async () => {
  await stopAll(running);
  for (const pid of pids.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await emu?.close();
  scratch?.cleanup();
});

const alive = processAlive;

/** Resolves true once `pid` is gone (the load-following limit only bounds a hang). */
async function gone(pid: number): Promise<boolean> {
  await processGone(pid);
  return true;
}

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

const api = () => ({ MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: emu.test.credential, XDG_CONFIG_HOME: join(scratch.dir, 'config') });

async function firstJson(args: string[], env: NodeJS.ProcessEnv): Promise<{ cli: CliProcess; ready: Record<string, unknown> }> {
  const cli = runCli(args, env);
  running.push(cli);
  return { cli, ready: JSON.parse(await cli.firstLine) as Record<string, unknown> };
}

describe.concurrent('a long-running command under --json: first a ready line with its pid', () => {
  it.each([
    ['listen', ['listen', '--port', '0', '--json'], { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/) }],
    ['feed tail', ['feed', 'tail', '--json'], { base_url: expect.any(String), integration_id: expect.stringMatching(/^int_/), cursor_file: null }],
    ['emulator logs tail', ['emulator', 'logs', 'tail', '--json'], { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) }],
    ['proxy', ['proxy', '--port', '0', '--json'], { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/sandbox\/v1$/), record: null }],
  ] as const)('%s', async (name, args, fields) => {
    const extra = name === 'proxy' ? ['--to', emu.running.sandbox_base_url] : name === 'emulator logs tail' ? ['--base-url', emu.running.url] : [];
    const { cli, ready } = await firstJson([...args, ...extra], { ...api(), MERCHANT_KIT_WEBHOOK_SECRET: SECRET });
    expect(ready).toMatchObject({ event: 'ready', ...fields, pid: cli.child.pid });
    expect(Object.keys(ready).at(-1)).toBe('pid');
  });

  it('and without --json, the pid in its first line or note (listen, feed tail, logs tail)', async () => {
    const listen = runCli(['listen', '--port', '0'], { ...api(), MERCHANT_KIT_WEBHOOK_SECRET: SECRET });
    running.push(listen);
    expect(await listen.firstLine).toMatch(new RegExp(`^Listening for webhooks on \\S+ \\(pid ${listen.child.pid}\\)\\. Ctrl\\+C to stop\\.$`));
    for (const args of [['feed', 'tail'], ['--base-url', emu.running.url, 'emulator', 'logs', 'tail']]) {
      const cli = runCli(args, api());
      running.push(cli);
      await waitForStderr(cli, '\n');
      expect(cli.stderr(), args.join(' ')).toContain(`(pid ${cli.child.pid}; Ctrl+C to stop)`);
    }
  });
});

describe.concurrent('under npm (npm run, npx, npm start: npm → sh → merchant-kit)', () => {
  /** `npm run <script>` in a scratch package whose script runs the built CLI with `args`. */
  async function npmRun(args: string[]): Promise<{ npm: ReturnType<typeof spawn>; ready: { pid: number; url: string } }> {
    const dir = scratchDir();
    const script = ['node', JSON.stringify(BIN), ...args].join(' ');
    writeFileSync(join(dir.dir, 'package.json'), JSON.stringify({ name: 'npm-run-check', version: '1.0.0', private: true, scripts: { long: script } }));
    const npm = spawn('npm', ['run', '--silent', 'long'], {
      cwd: dir.dir,
      env: { ...process.env, ...api(), MERCHANT_KIT_WEBHOOK_SECRET: SECRET, NO_COLOR: '1', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    npm.on('close', () => dir.cleanup());
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: npm.stdout! }).once('line', resolve);
      npm.once('exit', (code) => reject(new Error(`npm run ended (${code}) before the ready line`)));
    });
    const ready = JSON.parse(line) as { pid: number; url: string };
    pids.push(ready.pid);
    return { npm, ready };
  }

  it('SIGTERM to npm stops listen too: it does not run on with its port', async () => {
    const { npm, ready } = await npmRun(['listen', '--port', '0', '--json']);
    expect(ready.pid).not.toBe(npm.pid);
    const port = Number(new URL(ready.url).port);
    expect(await listening(port)).toBe(true);
    npm.kill('SIGTERM');
    expect(await gone(ready.pid)).toBe(true);
    expect(await listening(port)).toBe(false);
  });

  it('the same for the emulator of npm start: its ready line\'s pid is gone once npm is', async () => {
    const { npm, ready } = await npmRun(['emulator', 'start', '--port', '0', '--memory', '--json']);
    npm.kill('SIGTERM');
    expect(await gone(ready.pid)).toBe(true);
  });

  it('outside npm, a command whose parent shell exits runs on (nohup, a background job): only npm\'s children watch their parent', async () => {
    const env: NodeJS.ProcessEnv = { ...api(), MERCHANT_KIT_WEBHOOK_SECRET: SECRET };
    for (const key of Object.keys(process.env)) if (!key.startsWith('npm_')) env[key] ??= process.env[key];
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" listen --port 0 --json & echo "$!"`], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = Number(await new Promise<string>((resolve) => createInterface({ input: shell.stdout! }).once('line', resolve)));
    pids.push(pid);
    await new Promise((resolve) => shell.once('exit', resolve));
    // The real passing of time is the subject (nothing happens to wait for): three of the watcher's
    // rounds after the shell is gone.
    await realTimePassed(Date.now(), 3000);
    expect(alive(pid)).toBe(true);
  });
});
