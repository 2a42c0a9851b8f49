import { beforeAll, describe, it } from 'vitest';
import { runBuild } from '../../helpers/run-build.js';
import { createTestDatabase, PG_URL } from '../../helpers/postgres.js';
import { notPassed, observeVariant, slots, verdicts } from '../../helpers/erps/observe.js';
import { CORRECT, FAULTY } from '../../helpers/erps/zoo.js';

// DESIGN: the observer's verdicts do not depend on the emulator's storage. A few ERPs of the zoo,
// observed with the emulator on PostgreSQL: each session on a database of its own (processes on one
// database are one sandbox, so a second session would inherit the first one's webhook), in a process
// of its own, dropped after it. The postgres project's file alone (vitest.config.ts).

const NAMES = [
  'webhook only',
  'feed only, polling at its own interval',
  'rejects the probe order by a rule of its own',
  'imports an older order version again',
  'retries a 429/503 at once',
];
const VARIANTS = NAMES.map((name) => [...CORRECT, ...FAULTY].find((v) => v.name === name)!);

// Three sessions at a time (five, every variant at once, measured no faster: a session on PostgreSQL
// costs the server and the emulator more CPU than it waits).
const session = slots(3);

beforeAll(runBuild);

describe.skipIf(!PG_URL).concurrent('observer: the zoo\'s verdicts with the emulator on PostgreSQL', () => {
  it.for(VARIANTS.map((v) => [v.name, v] as const))('%s', { timeout: 600_000 }, async ([, v], { expect }) => {
    const { report, seconds, writes } = await session(async () => {
      const database = await createTestDatabase({ migrated: true });
      try {
        // A sandbox on a database refuses loopback webhook targets unless told (the ERPs listen on 127.0.0.1).
        return await observeVariant(v, ['--database-url', database.url, '--allow-loopback-targets']);
      } finally {
        await database.drop();
      }
    });
    const what = `${seconds.toFixed(1)} s: ${notPassed(report)}${writes.length ? `\nwrites:\n${writes.join('\n')}` : ''}`;
    expect(report.complete, what).toBe(true);
    expect(verdicts(report), what).toEqual(v.expect);
    expect(report.intake, what).toBe(v.intake);
    expect(JSON.stringify(report), what).not.toMatch(/\byet\b|watch/i);
  });
});
