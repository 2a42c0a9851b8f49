import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { ROOT } from './cli.js';
import { SLOW_FILES, SlowFirstSequencer } from './sequencer.js';

// issue 27: the order in which the suite's files start (vitest.config.ts). With two workers a long
// file that starts late runs alone at the end; the slowest files start first, on a fresh clone too.

const spec = (project: string, path: string) =>
  ({ moduleId: join(ROOT, path), project: { name: project, config: { sequence: { groupOrder: 0 } } } }) as unknown as TestSpecification;
/** Specifications named as the sequencer's results name them: `project:path`. */
const specs = (...keys: string[]) => keys.map((key) => spec(key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)));

function sequencer(results: Record<string, { duration: number; failed?: boolean }>, sizes: Record<string, number> = {}) {
  const cache = {
    getFileTestResults: (key: string) => (results[key] ? { failed: false, ...results[key] } : undefined),
    getFileStats: (key: string) => (sizes[key] === undefined ? undefined : { size: sizes[key] }),
  };
  return new SlowFirstSequencer({ cache, config: { root: ROOT } } as never);
}

const order = async (seq: SlowFirstSequencer, specs: TestSpecification[]) =>
  (await seq.sort(specs)).map((s) => `${s.project.name}:${s.moduleId.slice(ROOT.length + 1)}`);

describe('the order the suite starts its files in (issue 27)', () => {
  it('names only files that exist (a renamed slow file would silently start late)', () => {
    expect(SLOW_FILES.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it('on a fresh clone (no record of a run) starts the slow files first, in their order, then the largest of their project', async () => {
    const files = specs('sqlite:test/a.test.ts', 'sqlite:test/checks/zoo/correct.test.ts', 'postgres:test/b.test.ts', 'postgres:test/c.test.ts', 'sqlite:test/docs/docs.test.ts');
    const sizes = { 'sqlite:test/a.test.ts': 10, 'postgres:test/b.test.ts': 20, 'postgres:test/c.test.ts': 30, 'sqlite:test/checks/zoo/correct.test.ts': 1 };
    expect(await order(sequencer({}, sizes), files)).toEqual([
      'sqlite:test/docs/docs.test.ts',
      'sqlite:test/checks/zoo/correct.test.ts',
      'sqlite:test/a.test.ts',
      'postgres:test/c.test.ts',
      'postgres:test/b.test.ts',
    ]);
  });

  // `npm test` is `vitest run`: the repo's type check is a test file, and runs beside the first files.
  it("starts the repo's type check first, even when the last run found it short", async () => {
    const files = specs('sqlite:test/docs/docs.test.ts', 'sqlite:test/long.test.ts', 'sqlite:test/typecheck.test.ts');
    const results = { 'sqlite:test/typecheck.test.ts': { duration: 100 }, 'sqlite:test/long.test.ts': { duration: 60_000 } };
    expect((await order(sequencer(results), files))[0]).toBe('sqlite:test/typecheck.test.ts');
  });

  it("with a record, starts new files and last run's failures first, then the longest, each project's files together (the project of the first file first)", async () => {
    const files = specs('postgres:test/short.test.ts', 'sqlite:test/long.test.ts', 'sqlite:test/failed.test.ts', 'sqlite:test/new.test.ts', 'postgres:test/middle.test.ts', 'sqlite:test/shortest.test.ts');
    const results = {
      'postgres:test/short.test.ts': { duration: 1_000 },
      'sqlite:test/long.test.ts': { duration: 60_000 },
      'sqlite:test/failed.test.ts': { duration: 500, failed: true },
      'postgres:test/middle.test.ts': { duration: 9_000 },
      'sqlite:test/shortest.test.ts': { duration: 100 },
    };
    expect(await order(sequencer(results), files)).toEqual([
      'sqlite:test/new.test.ts',
      'sqlite:test/failed.test.ts',
      'sqlite:test/long.test.ts',
      'sqlite:test/shortest.test.ts',
      'postgres:test/middle.test.ts',
      'postgres:test/short.test.ts',
    ]);
  });

  // A worker keeps its process only while the next file in the queue is of its own project: files
  // of both projects in turn would start a process for nearly every file.
  it('changes project once in the whole queue', async () => {
    const keys = Array.from({ length: 20 }, (_, i) => `${i % 2 ? 'postgres' : 'sqlite'}:test/f${i}.test.ts`);
    const results = Object.fromEntries(keys.map((key, i) => [key, { duration: 1_000 * (20 - i) }]));
    const projects = (await order(sequencer(results), specs(...keys))).map((key) => key.slice(0, key.indexOf(':')));
    expect(projects.filter((project, i) => i > 0 && project !== projects[i - 1])).toHaveLength(1);
  });
});
