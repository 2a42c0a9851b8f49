import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/sequencer.js';

// Tests of the data folder, the SQLite adapter's own mechanisms and crashes of one process: they name
// their SQLite storage, so a second run would repeat the first.
const SQLITE_ONLY = [
  'test/emulator/api/auth-cache.test.ts',
  'test/emulator/catalog/batch-crash.test.ts',
  'test/emulator/orders/crash.test.ts',
  'test/emulator/webhooks/crash.test.ts',
  'test/emulator/webhooks/recovery.test.ts',
  'test/emulator/webhooks/restart.test.ts',
];

// Files of the postgres project alone (observed zoo sessions, each on a database of its own).
const POSTGRES_ONLY = ['test/checks/zoo/postgres.test.ts'];

// The port's contract suite, the adapters' own suites and the team tests choose their adapters.
const ADAPTERS_OWN = ['test/emulator/store', 'test/emulator/adapters', 'test/emulator/team'];

/**
 * The HTTP-level emulator tests (every file that starts an emulator through test/helpers/emulator.ts)
 * run a second time on PostgreSQL, each emulator on a fresh database (issue 17).
 */
function emulatorSuite(dir = 'test/emulator'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name).split('\\').join('/');
    if (e.isDirectory()) return ADAPTERS_OWN.includes(path) ? [] : emulatorSuite(path);
    // A `.postgres.test.ts` names its databases itself: the sqlite project already runs it as written.
    if (!e.name.endsWith('.test.ts') || e.name.endsWith('.postgres.test.ts') || SQLITE_ONLY.includes(path)) return [];
    return readFileSync(path, 'utf8').includes('startTestEmulator') ? [path] : [];
  });
}

// PostgreSQL runs where a server is named (.ci/run starts one); locally without one it is left out
// with the line test/helpers/postgres.ts prints. On CI it never is.
const withPostgres = Boolean(process.env.MERCHANT_KIT_TEST_DATABASE_URL || process.env.CI);

// Time limits bound a hang, never a healthy run (docs/contributing.md, "Time limits in tests"): a
// test waits for events, each wait's own limit grows with the machine's load (test/helpers/wait.ts),
// and these two only catch what hangs outside such a wait. A test's is as long as a hook's: 120 s was
// met by healthy tests that start several processes one after another, beside three other files
// doing the same, on a machine loaded 10–15 times over (team/feed, emulator-start's damaged files).
export default defineConfig({
  test: {
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // expect.poll waits for a state that is sure to come; its limit (vitest's default is 1 s) only bounds a hang.
    expect: { poll: { timeout: 30_000 } },
    // The run's own folder, where the first file that needs the built CLI copies it for all (helpers/run-build.ts).
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // One process per worker for all the files it runs (issue 27): each file no longer pays for a
    // new process and a fresh import of the emulator, fastify and zod (about a second of CPU per file,
    // a fifth of the suite). A file leaves no state behind: it closes what it starts, restores its
    // spies, and names its own databases, folders and ports.
    isolate: false,
    // Four files at a time on CI's 2 cores (vitest's default there is one): most files wait on child
    // processes, browsers, sockets and observed sessions; with two workers the machine stayed a third
    // idle, with three a fifth (issue 27: quiet, 464 s with two, 312–388 s with three, 350 s with four;
    // docs/contributing.md). Every time limit grows with the load, so more files at once is never red.
    maxWorkers: 4,
    // The slowest files first (a fresh clone has no record of an earlier run's times).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...POSTGRES_ONLY] } },
      ...(withPostgres
        ? [{ extends: true, test: { name: 'postgres', include: [...emulatorSuite(), ...POSTGRES_ONLY], env: { MERCHANT_KIT_TEST_STORE: 'postgres' } } }]
        : []),
    ],
  },
});
