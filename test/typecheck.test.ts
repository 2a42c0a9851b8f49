import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { runAsync } from './helpers/package.js';

// `npm test` type-checks the whole repo (tsconfig.json: sources, tests, bench) here, as a test file
// that the sequencer starts first (helpers/sequencer.ts), so that the check runs beside the first
// files instead of before them all. A type error anywhere fails this test, and so `npm test`.
//
// The compiler is TypeScript 7, the native one (the `typescript-native` devDependency, an alias of
// `typescript@7`): the same checks as TypeScript 5's `tsc`, for a fifth of its CPU (issue 27: 5 s
// against 26 s from scratch on this repo). One checker (`--checkers 1`): the default of four
// computes the types they share once each, for more than twice the CPU, and the run's other files
// want the cores. The compiler keeps what it learned in node_modules/.cache (`--incremental`): a
// later run re-checks only the changed files and what depends on it. TypeScript 5 (`typescript`)
// stays for what uses its API: the declarations' bundling (rollup-plugin-dts) and the package test's
// consumer checks (helpers/consumer-types.mjs).

const TSC = join(ROOT, 'node_modules', 'typescript-native', 'bin', 'tsc');
const BUILD_INFO = join(ROOT, 'node_modules', '.cache', 'merchant-kit-typecheck', 'tsconfig.ts7.tsbuildinfo');

it('type-checks the repo: tsc --noEmit reports no error', async () => {
  const out = await runAsync(process.execPath, [TSC, '-p', ROOT, '--noEmit', '--checkers', '1', '--incremental', '--tsBuildInfoFile', BUILD_INFO], ROOT);
  expect(out.output).toBe('');
  expect(out.status).toBe(0);
}, 600_000);
