import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// A bench is a command a person runs by hand: `--help` says what it measures and how to call it, and a
// wrong option is one `error:` line with the usage line, exit 2, never a stack trace (bench/lib/args.mjs).
// bench/cli-start.mjs stands for all: it loads nothing of the build before its options are read.
const run = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bench', 'cli-start.mjs'), ...args], { cwd: ROOT, encoding: 'utf8' });

describe('a bench\'s options', () => {
  it('prints the bench\'s header comment for --help, exit 0', () => {
    const out = run('--help');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^Start-up cost of the CLI/);
    expect(out.stdout).toContain('node bench/cli-start.mjs [--runs 30]');
  });

  it('refuses an unknown option with one error line and the usage line, exit 2, no stack', () => {
    const out = run('--nope');
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/^error: Unknown option '--nope'\nusage: node bench\/cli-start\.mjs /);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });

  it('reads every bench\'s options through benchArgs or its own usage handling', () => {
    const benches = readdirSync(join(ROOT, 'bench')).filter((f) => f.endsWith('.mjs'));
    for (const f of benches) {
      const text = readFileSync(join(ROOT, 'bench', f), 'utf8');
      if (!/process\.argv|parseArgs|benchArgs/.test(text)) continue;
      // mixed.mjs and idle.mjs answer --help and usage errors themselves (their UsageError).
      expect(/benchArgs\(import\.meta\.url/.test(text) || (/help: \{ type: 'boolean'/.test(text) && /UsageError/.test(text)), f).toBe(true);
    }
  });
});
