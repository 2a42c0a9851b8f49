import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { spinnerFactory, spinnerOptions } from '../../src/cli/spinner.js';

// issue 14: ora never discards stdin. Its default reads and drops what arrives on a terminal's
// stdin while it spins, so the lines pasted after a command that shows a spinner were lost. One
// factory makes every spinner (the docs test pastes every file into a terminal to prove it).

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the spinner factory', () => {
  it('makes every spinner on stderr with discardStdin: false, whatever the caller asks', () => {
    expect(spinnerOptions()).toMatchObject({ stream: process.stderr, discardStdin: false });
    const forced = spinnerOptions({ text: 'x', discardStdin: true, stream: process.stdout } as never);
    expect(forced).toMatchObject({ text: 'x', stream: process.stderr, discardStdin: false });
  });

  it('gives ora spinners that keep those options', async () => {
    const make = await spinnerFactory();
    const spinner = make({ text: 'reading' });
    expect(spinner.text).toBe('reading');
    // Not a terminal here: ora draws nothing and never touches stdin.
    spinner.start();
    spinner.stop();
  });

  it('is the only module of the CLI, the emulator and the checks that imports ora (types aside)', () => {
    const offenders = ['src', 'emulator', 'checks']
      .flatMap((d) => sources(join(ROOT, d)))
      .filter((file) => !file.endsWith(join('src', 'cli', 'spinner.ts')))
      .filter((file) => /\bfrom 'ora'|import\('ora'\)/.test(readFileSync(file, 'utf8').replace(/^import type .*$/gm, '')))
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
