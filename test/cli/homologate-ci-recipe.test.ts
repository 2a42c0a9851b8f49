import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, ensureBuilt, ROOT } from '../helpers/cli.js';
import { filesIn, homologationScratch } from '../helpers/homologation.js';
import { startReferenceErp } from '../helpers/reference-erp.js';
import { waitFor } from '../helpers/wait.js';

// docs/homologation.md's CI recipe, run as written: the script block after `<!-- ci-recipe -->`,
// with `npx merchant-kit` on PATH as the repo's built bin, a stand-in ./start-connector.sh that
// hands the target to this test, which runs the reference ERP as "your connector", and a stand-in
// ./do-task.sh that hands each task to that ERP's operator interface.

/** The fenced block that follows the `<!-- ci-recipe -->` line. */
function recipe(markdown: string): string {
  const lines = markdown.split('\n');
  const at = lines.findIndex((l) => l.trim() === '<!-- ci-recipe -->');
  if (at === -1) throw new Error('no <!-- ci-recipe --> block in docs/homologation.md');
  const open = lines.findIndex((l, i) => i > at && l.startsWith('```'));
  const close = lines.findIndex((l, i) => i > open && l.startsWith('```'));
  return lines.slice(open + 1, close).join('\n');
}

beforeAll(ensureBuilt);

/** The pids of built-bin emulators still running with `dir` as their working directory (Linux /proc). */
function emulatorsIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return cmd.includes(BIN) && cmd.includes('emulator') && realpathSync(`/proc/${pid}/cwd`) === realpathSync(dir);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

describe('docs/homologation.md CI recipe', () => {
  it('starts the emulator, observes the connector, exits 0 and publishes the JUnit file and the Markdown summary', async () => {
    const scratch = homologationScratch();
    const dir = scratch.dir;
    const bin = join(dir, '.bin');
    mkdirSync(bin);
    // Like npx, the shim stays the parent of the command it runs (no exec): `kill $!` stops npx only.
    writeFileSync(join(bin, 'npx'), `#!/bin/sh\nwhile [ "$1" = "--no-install" ]; do shift; done\nif [ "$1" = "merchant-kit" ]; then shift; "${process.execPath}" "${BIN}" "$@"; exit $?; fi\nexit 127\n`);
    chmodSync(join(bin, 'npx'), 0o755);
    writeFileSync(join(dir, 'start-connector.sh'), '#!/bin/sh\nprintf "%s\\n%s\\n" "$MERCHANT_KIT_BASE_URL" "$MERCHANT_KIT_CREDENTIAL" > connector.request\nwhile [ ! -f connector.ready ]; do sleep 0.1; done\n');
    chmodSync(join(dir, 'start-connector.sh'), 0o755);
    writeFileSync(join(dir, 'do-task.sh'), '#!/bin/sh\necho "$1" >> tasks.handed\nexec curl -sf -X POST -H "content-type: application/json" -d "$1" "$(cat connector.url)/tasks"\n');
    chmodSync(join(dir, 'do-task.sh'), 0o755);
    writeFileSync(join(dir, 'homologation.sh'), recipe(readFileSync(join(ROOT, 'docs', 'homologation.md'), 'utf8')));
    const summary = join(dir, 'step-summary.md');
    // A group of its own: a failing test stops the script and what it started (the stand-in's wait, its emulator).
    const child = spawn('bash', ['homologation.sh'], { cwd: dir, detached: true, env: { ...process.env, ...scratch.env, PATH: `${bin}:${process.env.PATH}`, GITHUB_STEP_SUMMARY: summary, NO_COLOR: '1' } });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));

    // The stand-in connector: the reference ERP, started with the target the script exported.
    const request = join(dir, 'connector.request');
    // Both lines written (the shell creates the file before printf fills it).
    const written = () => (existsSync(request) ? readFileSync(request, 'utf8') : '');
    await waitFor(() => /^\S+\n\S+\n$/.test(written()), () => `the recipe's connector.request; its output so far:\n${output}`, { intervalMs: 50 });
    const [baseUrl, credential] = written().trim().split('\n');
    const erp = await startReferenceErp(baseUrl!, credential!);
    writeFileSync(join(dir, 'connector.url'), erp.operatorUrl);
    writeFileSync(join(dir, 'connector.ready'), '');
    try {
      expect(await exited, output).toBe(0);
    } finally {
      await erp.close();
    }
    expect(readFileSync(summary, 'utf8')).toContain('**Certified**: 8/8 checks passed.');
    const reports = join(dir, 'homologation-report');
    expect(readFileSync(join(reports, 'homologation.junit.xml'), 'utf8')).toContain('<testsuites name="merchant-kit homologation" tests="8" failures="0"');
    // The driver loop handed every task over once, and each was done.
    const report = JSON.parse(readFileSync(join(reports, 'homologation.json'), 'utf8'));
    const handed = readFileSync(join(dir, 'tasks.handed'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).id);
    expect(handed.sort()).toEqual(report.tasks.map((t: { id: string }) => t.id).sort());
    expect(report.tasks.every((t: { status: string }) => t.status === 'done')).toBe(true);
    // The reports carry no secret (the connector.request file of this test does, and is not a report).
    const secret = credential!.split('.')[1]!;
    for (const f of filesIn(reports)) expect(f.text).not.toContain(secret);
    // The recipe stops its emulator before the test stops the connector: a feed read in between finds
    // nothing listening, which is the recipe's order of things, not the connector's error.
    expect(erp.errors.filter((e) => !/ECONNREFUSED/.test(e))).toEqual([]);
    // issue 14: the recipe stops its emulator (by the ready line's pid) and leaves no credential in
    // the workspace (the ready line goes to a private temporary file).
    try {
      await expect.poll(() => emulatorsIn(dir), { interval: 200 }).toEqual([]);
    } finally {
      for (const pid of emulatorsIn(dir)) process.kill(pid, 'SIGKILL');
    }
    const left = filesIn(dir).filter((f) => !f.path.endsWith('connector.request') && /svs_(?:test|live)_|whsec_/.test(f.text));
    expect(left.map((f) => f.path)).toEqual([]);
  });
});
