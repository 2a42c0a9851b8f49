import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { runAsync } from './helpers/package.js';

// `npm test` type-checks the whole repo (tsconfig.json: sources, tests, bench) here, as a test file
// that the sequencer starts first (helpers/sequencer.ts), so that the check runs beside the first
// files instead of before them all (issue 27: 25 s of a core before any test started). A type error
// anywhere fails this test, and so `npm test`. The compiler keeps what it learned in
// node_modules/.cache (`--incremental`): a later run re-checks only the changed files and what
// depends on them (a quarter of the work). `npx tsc --noEmit` is the same check, from scratch.

const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const BUILD_INFO = join(ROOT, 'node_modules', '.cache', 'merchant-kit-typecheck', 'tsconfig.tsbuildinfo');

it('type-checks the repo: tsc --noEmit reports no error', async () => {
  const out = await runAsync(process.execPath, [TSC, '-p', ROOT, '--noEmit', '--incremental', '--tsBuildInfoFile', BUILD_INFO], ROOT);
  expect(out.output).toBe('');
  expect(out.status).toBe(0);
}, 600_000);
