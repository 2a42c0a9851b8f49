import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, settleAttempt, trackFailureRun, type DeliveryState } from '../../../emulator/webhooks/retry-schedule.js';

const MIN = 60_000;
const H = 60 * MIN;
const t0 = 1_800_000_000_000;
const pending = (attemptCount: number, nextAttemptAt: number | null = t0): DeliveryState => ({ status: 'pending', attemptCount, nextAttemptAt });

describe('webhook retry schedule', () => {
  it('waits 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h, 24 h after successive failures', () => {
    expect(RETRY_DELAYS_MS).toEqual([1 * MIN, 5 * MIN, 15 * MIN, 1 * H, 3 * H, 6 * H, 12 * H, 24 * H]);
    expect(MAX_ATTEMPTS).toBe(9);
  });

  it.each([
    [0, 1, t0 + 1 * MIN],
    [1, 2, t0 + 5 * MIN],
    [2, 3, t0 + 15 * MIN],
    [3, 4, t0 + 1 * H],
    [4, 5, t0 + 3 * H],
    [5, 6, t0 + 6 * H],
    [6, 7, t0 + 12 * H],
    [7, 8, t0 + 24 * H],
  ])('after scheduled failure with %i attempts made, counts %i and retries at the next delay', (made, count, next) => {
    expect(settleAttempt(pending(made), false, false, t0)).toEqual({ status: 'pending', attemptCount: count, nextAttemptAt: next });
  });

  it('ends failed when the ninth attempt fails', () => {
    expect(settleAttempt(pending(8), false, false, t0)).toEqual({ status: 'failed', attemptCount: 9, nextAttemptAt: null });
  });

  it('ends succeeded on a 2xx and counts the attempt', () => {
    expect(settleAttempt(pending(3), true, false, t0)).toEqual({ status: 'succeeded', attemptCount: 4, nextAttemptAt: null });
  });

  it.each<[string, DeliveryState]>([
    ['pending', pending(2, t0 + 15 * MIN)],
    ['failed', { status: 'failed', attemptCount: 9, nextAttemptAt: null }],
    ['succeeded', { status: 'succeeded', attemptCount: 1, nextAttemptAt: null }],
  ])('leaves a %s delivery as it was when a manual retry fails (not one of the nine)', (_name, before) => {
    expect(settleAttempt(before, false, true, t0)).toEqual(before);
  });

  it('marks a failed delivery succeeded when a manual retry succeeds, without counting it', () => {
    expect(settleAttempt({ status: 'failed', attemptCount: 9, nextAttemptAt: null }, true, true, t0)).toEqual({
      status: 'succeeded', attemptCount: 9, nextAttemptAt: null,
    });
  });
});

describe('webhook pause after 72 h of continuous failures', () => {
  it.each([
    ['first failure starts the run', null, false, t0, { failingSince: t0, pause: false }],
    ['failure 71 h 59 min into the run', t0, false, t0 + 72 * H - MIN, { failingSince: t0, pause: false }],
    ['failure exactly 72 h into the run', t0, false, t0 + 72 * H, { failingSince: t0, pause: true }],
    ['a success ends the run', t0, true, t0 + 80 * H, { failingSince: null, pause: false }],
  ] as const)('%s', (_name, since, ok, now, expected) => {
    expect(trackFailureRun(since, ok, now)).toEqual(expected);
  });
});
