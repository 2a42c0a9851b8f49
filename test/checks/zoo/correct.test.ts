import { afterAll, beforeAll, describe, it } from 'vitest';
import { runBuild } from '../../helpers/run-build.js';
import { notPassed, sharedEmulators, verdicts } from '../../helpers/erps/observe.js';
import { CORRECT, longestFirst } from '../../helpers/erps/zoo.js';

// DESIGN: the observer grades a correct ERP as correct, however it is built. Each ERP of the zoo
// (test/helpers/erps/zoo.ts) follows the spec in its own way; each is observed three times, on a
// store of its own over real HTTP, and certified every time, by a session that ends by itself as
// soon as every verdict is certain (its timeout is ten minutes; the test allows far less).

const RUNS = 3;
// Eight sessions at a time, each emulator in a process of its own (one per slot, a new store for
// each session; two sessions on one process measured worse: the observer times each ERP's retries
// on the emulator's loop, and a loop shared by two sessions read correct retries as unsure until a
// session ran out of tries): a session mostly waits (the observer's settle windows, Retry-After, the
// person, a queue), about 0.15 of a core each, so eight overlap their waits (45 sessions of 1.5 to
// 13 s; five at a time took 62 s of the suite's run) for three more process starts (~1.5 s of CPU).
const emulators = sharedEmulators(8);
// The longest sessions first (zoo.ts's sessionSeconds), so that the file does not end on them alone.
const ORDERED = longestFirst(CORRECT);

beforeAll(runBuild);
afterAll(() => emulators.close());

describe.concurrent('observer: correct ERPs built in different legal ways are certified, every time', () => {
  it.for(ORDERED.map((v) => [v.name, v] as const))('%s', { timeout: 600_000 }, async ([, v], { expect }) => {
    const observed = await Promise.all(Array.from({ length: RUNS }, () => emulators.observe(v)));
    for (const [i, { report, errors, personErrors, seconds, writes }] of observed.entries()) {
      const what = `run ${i + 1} (${seconds.toFixed(1)} s): ${notPassed(report)}${writes.length ? `\nwrites:\n${writes.join('\n')}` : ''}`;
      expect(report.complete, what).toBe(true);
      expect(verdicts(report), what).toEqual(v.expect);
      expect(report.summary.certified, what).toBe(true);
      expect(report.intake, what).toBe(v.intake);
      expect(report.settings, what).toEqual({ order_status_authority: 'both', ack_expected: 'on_receipt', ...v.settings });
      // A complete report says nothing "yet" and watches nothing.
      expect(JSON.stringify(report), what).not.toMatch(/\byet\b|watch/i);
      expect(errors, what).toEqual([]);
      expect(personErrors, what).toEqual([]);
    }
  });
});
