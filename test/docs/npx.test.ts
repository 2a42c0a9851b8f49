import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { shellBlocks } from '../helpers/docs.js';

// A clone of the repo after `npm install` has no `merchant-kit` on PATH: the guides a new user follows
// in order must call it through npx (catalog-sync.md said plain `merchant-kit …` and failed with
// "command not found"). The docs runner (docs.test.ts) puts a shim on PATH, so it cannot see this.
const GUIDES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('the guides call the command as npx merchant-kit', () => {
  it.each(GUIDES)('%s has no bare merchant-kit command in its sh blocks', (file) => {
    const bare = shellBlocks(readFileSync(join(ROOT, file), 'utf8'))
      .flatMap((b) => b.code.split('\n'))
      .filter((line) => /(^|[;&|(]\s*|\$\(\s*)merchant-kit\s/.test(line.trim()));
    expect(bare).toEqual([]);
  });
});

// issue 14: an unpublished name must never run a stranger's package, so every npx call of the docs,
// in any block or in the prose, says --no-install (npx then runs only the project's own install).
describe('the guides call npx with --no-install', () => {
  it.each(GUIDES)('%s never calls npx merchant-kit without --no-install', (file) => {
    const calls = readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => [...line.matchAll(/\bnpx\b((?:\s+-[-\w]+)*)\s+merchant-kit\b/g)].map((m) => ({ line: i + 1, flags: m[1] ?? '', text: m[0] })));
    expect(calls.filter((c) => !/\s--no-install\b/.test(c.flags))).toEqual([]);
  });
});
