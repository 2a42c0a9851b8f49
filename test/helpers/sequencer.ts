import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (measured on a 2-core machine, issue 27: the seconds each
 * took in a whole run, before its own cuts): each starts first, so that none is left running alone at
 * the end of a run while the other worker idles. Without this list a fresh clone (no record of an
 * earlier run) starts the largest files first, and the zoo's correct ERPs (2 kB, 114 s) would start
 * last. The docs wait on their sessions' commands, the zoo and the observer on ERPs and a browser, the
 * package test on npm and the compiler.
 */
export const SLOW_FILES = [
  // The repo's type check (issue 27: it ran before any file, 25 s of a core): first, beside the docs.
  'test/typecheck.test.ts',
  'test/docs/docs.test.ts', // 192 s
  'test/package/pack.test.ts', // 200 s (a quarter less since its compiler runs share the cores)
  'test/checks/zoo/correct.test.ts', // 114 s
  'test/checks/observer.test.ts', // 73 s
  'test/cli/commands.test.ts', // 38 s
  'test/cli/bundle-crash.test.ts', // 34 s
  'test/cli/emulator-detach.test.ts', // 32 s
  'test/cli/catalog-sync.test.ts', // 32 s
  'test/cli/profile.test.ts',
  'test/cli/emulator-sandbox.test.ts',
  'test/cli/catalog-commands.test.ts',
  'test/cli/catalog-resume.test.ts',
  'test/cli/catalog-sync-report.test.ts',
  'test/cli/feed-tail.test.ts',
];

/** What the sequencer reads of vitest's results cache (vitest's own `ctx.cache`). */
interface ResultsCache {
  getFileTestResults(key: string): { duration: number; failed: boolean } | undefined;
  getFileStats(key: string): { size: number } | undefined;
}

/**
 * The order in which the files start: the slow files above, in that order; then the files with no
 * record of an earlier run (a new file, or every file of a fresh clone), largest first; then those
 * that failed last time; then the others, longest last time first. Then each project's files
 * together, the project of the first file first: a vitest worker keeps its process (isolate: false)
 * only while the next file in the queue is of its own project, and a new one costs about a second
 * of CPU (node, vitest, the emulator's modules). Ordered across both projects, a run started 76
 * workers for 318 files (issue 27); grouped, each worker changes project once. The postgres
 * project's files are short (13 s the longest, 107 s in all in a quiet run), so none is left
 * running alone at the end.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = (this.ctx as unknown as { cache: ResultsCache }).cache;
    const root = (this.ctx as unknown as { config: { root: string } }).config.root;
    const key = (file: TestSpecification) => `${file.project.name}:${relative(root, file.moduleId)}`;
    const rank = (file: TestSpecification) => {
      const path = file.moduleId.split('\\').join('/');
      const i = SLOW_FILES.findIndex((slow) => path.endsWith(`/${slow}`));
      return i === -1 ? SLOW_FILES.length : i;
    };
    const entries = files.map((file, i) => {
      const last = cache.getFileTestResults(key(file));
      return { file, i, rank: rank(file), last, size: cache.getFileStats(key(file))?.size ?? 0 };
    });
    const sorted = entries
      .sort((a, b) => {
        if (a.rank !== b.rank) return a.rank - b.rank;
        if (!a.last !== !b.last) return a.last ? 1 : -1;
        if (!a.last || !b.last) return b.size - a.size || a.i - b.i;
        if (a.last.failed !== b.last.failed) return a.last.failed ? -1 : 1;
        return b.last.duration - a.last.duration || a.i - b.i;
      })
      .map(({ file }) => file);
    const projects = [...new Set(sorted.map((file) => file.project.name))];
    return projects.flatMap((project) => sorted.filter((file) => file.project.name === project));
  }
}
