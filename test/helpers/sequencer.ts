import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (measured on a 2-core machine, issue 27): each starts
 * first, so that none is left running alone at the end of a run while the other workers idle. The
 * package test waits mostly on npm's downloads, the docs on their sessions' commands.
 */
export const SLOW_FILES = [
  'test/package/pack.test.ts',
  'test/docs/docs.test.ts',
  'test/cli/bundle-crash.test.ts',
  'test/cli/commands.test.ts',
  'test/cli/profile.test.ts',
  'test/cli/emulator-sandbox.test.ts',
  'test/cli/catalog-sync.test.ts',
  'test/cli/catalog-commands.test.ts',
  'test/cli/catalog-resume.test.ts',
  'test/cli/catalog-sync-report.test.ts',
  'test/cli/feed-tail.test.ts',
  'test/cli/emulator-detach.test.ts',
];

/**
 * vitest's own order (files that failed last time, then the longest last time; without a record of
 * an earlier run, the largest files), except that the slow files above go first: a fresh clone
 * (CI) has no record of an earlier run.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const path = file.moduleId.split('\\').join('/');
      const i = SLOW_FILES.findIndex((slow) => path.endsWith(`/${slow}`));
      return i === -1 ? SLOW_FILES.length : i;
    };
    return sorted.map((file, i) => ({ file, i, rank: rank(file) })).sort((a, b) => a.rank - b.rank || a.i - b.i).map(({ file }) => file);
  }
}
