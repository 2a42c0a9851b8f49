import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// issue 27: a reader runs the guides in the clone (README's quick start starts there), and they wrote
// 18 files git did not know (menus, bundles, reports, logs). Every path a guide's shell writes, in a
// block that runs or one marked not-run, is in .gitignore.

const GUIDES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The body of every ```sh block, run by the docs test or not. */
function shBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^[ \t]*```sh[ \t]*\n([\s\S]*?)^[ \t]*```[ \t]*$/gm)].map((m) => m[1]!);
}

/** A shell word: quoted (spaces allowed) or bare. */
const WORD = String.raw`("[^"]+"|[^\s"&|;)<>]+)`;
/** Where the shell of a block writes: redirections, and the commands' output flags. */
const WRITES = [
  new RegExp(String.raw`(?:^|[\s;(])\d?>>?[ \t]*${WORD}`, 'gm'),
  new RegExp(String.raw`--(?:out|record|report-dir|cursor-file|log-file|data)[ =]${WORD}`, 'g'),
  new RegExp(String.raw`\bcurl\b[^\n|;&]*?\s-o[ \t]+${WORD}`, 'g'), // curl's own -o, not a grep -o after a pipe
  new RegExp(String.raw`\btee[ \t]+(?:-a[ \t]+)?${WORD}`, 'g'),
];

/** The relative paths a guide writes into its working directory (not /dev/null, a variable's, or an absolute one). */
function written(markdown: string): string[] {
  const paths = new Set<string>();
  for (const block of shBlocks(markdown)) {
    for (const pattern of WRITES) for (const match of block.matchAll(pattern)) paths.add(match[1]!.replace(/^"(.*)"$/, '$1'));
  }
  return [...paths].filter((p) => !p.startsWith('/') && !p.includes('$') && !p.startsWith('&')).map((p) => p.replace(/^\.\//, ''));
}

const ignored = (path: string): boolean => {
  try {
    execFileSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
};

describe('what the guides write in the clone is ignored by git', () => {
  it('finds the files they write (the check itself reads the blocks)', () => {
    expect(written(readFileSync(join(ROOT, 'docs', 'support.md'), 'utf8'))).toEqual(expect.arrayContaining(['session.jsonl', 'before.json.gz', 'proxy.log']));
    expect(written('```sh\nnpx x > out.txt 2> err.log\nnpx y --out "my file.json" > /dev/null\nz > "$TMP"\n```\n')).toEqual(['out.txt', 'err.log', 'my file.json']);
    expect(written("```sh\ncurl -s -o page.html http://x/\ncurl -s http://x/ | grep -o '<h1>[^<]*</h1>'\n```\n")).toEqual(['page.html']);
  });

  it.each(GUIDES)('%s', (file) => {
    const notIgnored = written(readFileSync(join(ROOT, file), 'utf8')).filter((path) => !ignored(path));
    expect(notIgnored, `add them to .gitignore (root-anchored): ${notIgnored.join(', ')}`).toEqual([]);
  });
});
