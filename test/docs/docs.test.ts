import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/cli.js';
import { adaptBlock, BLOCK_MARK, lastBlock, sessionScript, shellBlocks, type Target } from '../helpers/docs.js';

// issue 10, item 9: every command of the docs works when copy-pasted in order.
//
// The convention (docs/contributing.md):
// - blocks fenced ```sh are run; blocks fenced ```console, ```text, ```json, ```bash-norun (or any
//   other info string), and blocks whose previous non-blank line is `<!-- not-run -->`, are not run
//   (long-running commands such as `listen`, interactive prompts, output samples);
// - the blocks of one file run in order in one bash session (`set -eo pipefail`) in a scratch
//   folder, against a fresh emulator of their own (the built CLI, `--port 0 --memory --json`);
// - `127.0.0.1:4010` and `localhost:4010` become that emulator's address, `svk_test_….svs_test_…`
//   and `svk_live_….svs_live_…` its seeded credentials; `merchant-kit` and `npx merchant-kit` run the
//   repo's built bin (a private copy of it); lines that are `npm install`, `npm ci`, `npm start`,
//   `npm test` are skipped; `curl` fails on answers of 400 or more (`--fail-with-body`);
// - a block that fails fails the test with the file, the block's line and its output.

const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
].filter((f) => shellBlocks(readFileSync(join(ROOT, f), 'utf8')).length > 0);

const FILE_TIMEOUT_MS = 45_000;
/** The private copy of the built CLI the sessions run (see snapshotBuild). */
let BUILD = '';
let BIN = '';

interface Emulator {
  target: Target;
  stop: () => void;
}

/** The built CLI's emulator on a free port, in memory; resolves with its ready line's data. */
function startEmulator(cwd: string): Promise<Emulator> {
  const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--memory', '--json'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the emulator did not start: ${stderr}`)), 20_000);
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}): ${stderr}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const ready = JSON.parse(line);
      const credential = (env: string) => ready.stores.find((s: { environment: string }) => s.environment === env).credential as string;
      resolve({
        target: { hostPort: new URL(ready.url).host, testCredential: credential('test'), liveCredential: credential('live') },
        stop: () => child.kill('SIGTERM'),
      });
    });
  });
}

const CURL = execFileSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).trim();

/** `merchant-kit` and `npx merchant-kit` on PATH, both the repo's built bin; curl failing on HTTP errors. */
function shims(dir: string): string {
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  const write = (name: string, text: string) => {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  };
  write('merchant-kit', `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  // An answer of 400 or more fails the command (and so the block), its body still printed.
  write('curl', `#!/bin/sh\nexec "${CURL}" --fail-with-body "$@"\n`);
  write(
    'npx',
    `#!/bin/sh
while [ "$1" = "-y" ] || [ "$1" = "--yes" ] || [ "$1" = "--no-install" ]; do shift; done
if [ "$1" = "merchant-kit" ]; then shift; exec "${process.execPath}" "${BIN}" "$@"; fi
echo "docs runner: only npx merchant-kit is available here (got: npx $*)" >&2
exit 127
`,
  );
  return bin;
}

interface Outcome {
  code: number | null;
  output: string;
}

function runSession(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n(docs runner: stopped after ${FILE_TIMEOUT_MS / 1000} s)`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, FILE_TIMEOUT_MS);
    let exitCode: number | null = null;
    // When bash exits, whatever a block left running in the background (a receiver, a proxy) goes
    // with it; its end of the output pipes closes then, and the session's output is complete.
    child.on('exit', (code) => {
      exitCode = code;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* nothing left */
      }
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ code: exitCode, output });
    });
  });
}

async function runFile(file: string): Promise<{ failure: string | null; blocks: number }> {
  const markdown = readFileSync(join(ROOT, file), 'utf8');
  const blocks = shellBlocks(markdown);
  const dir = mkdtempSync(join(tmpdir(), 'merchant-kit-docs-'));
  // What a reader has at hand in a clone of the repo.
  for (const name of ['fixtures', 'docs']) if (existsSync(join(ROOT, name))) symlinkSync(join(ROOT, name), join(dir, name), 'dir');
  const emulator = await startEmulator(dir);
  try {
    const adapted = blocks.map((b) => ({ ...b, code: adaptBlock(b.code, emulator.target) }));
    const env: NodeJS.ProcessEnv = {
      PATH: `${shims(dir)}:${process.env.PATH}`,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, '.config'),
      TMPDIR: tmpdir(),
      NO_COLOR: '1',
      LANG: 'C.UTF-8',
    };
    const { code, output } = await runSession(sessionScript(adapted), dir, env);
    const index = lastBlock(output);
    if (code === 0 && index === null) return { failure: null, blocks: blocks.length };
    const block = blocks[index ?? 0];
    const own = output.slice(output.lastIndexOf(`${BLOCK_MARK} ${index}`)).split('\n').slice(1).join('\n');
    return {
      failure: `${file}:${block.line}: the block exited with ${code}\n--- block ---\n${block.code}\n--- output ---\n${own.slice(-4000)}`,
      blocks: blocks.length,
    };
  } finally {
    emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A private copy of the built CLI (bin, dist, package.json; node_modules and fixtures linked), so
 * that a rebuild of the shared dist/ by another test run cannot pull it away mid-session.
 */
function snapshotBuild(): string {
  const root = mkdtempSync(join(tmpdir(), 'merchant-kit-docs-build-'));
  for (const name of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, name), join(root, name), { recursive: true });
  for (const name of ['node_modules', 'fixtures']) if (existsSync(join(ROOT, name))) symlinkSync(join(ROOT, name), join(root, name), 'dir');
  if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) throw new Error('dist/ was being rebuilt while it was copied');
  return root;
}

describe('the docs run as written (issue 10, item 9)', () => {
  beforeAll(async () => {
    for (let attempt = 0; ; attempt++) {
      await ensureBuilt();
      try {
        BUILD = snapshotBuild();
        break;
      } catch (error) {
        if (attempt >= 5) throw error;
      }
    }
    BIN = join(BUILD, 'bin', 'merchant-kit.js');
  }, 180_000);
  afterAll(() => {
    if (BUILD) rmSync(BUILD, { recursive: true, force: true });
  });

  it('finds the shell blocks of README.md and docs/*.md', () => {
    expect(FILES).toContain('README.md');
    expect(FILES.length).toBeGreaterThan(5);
  });

  it.concurrent.each(FILES)('%s: every ```sh block exits 0, in order, against a fresh emulator', async (file) => {
    const { failure } = await runFile(file);
    expect(failure, failure ?? '').toBeNull();
  }, FILE_TIMEOUT_MS + 30_000);
});
