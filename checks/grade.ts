import type { Check } from './check.js';
import type { Observation } from '../src/contract/observation.js';
import { CHECKS } from './registry.js';
import { resultOf } from './runner.js';
import type { CheckOutcome, CheckResult } from './types.js';

/**
 * Every check graded from what the observer saw (pure; the emulator calls it on each GET).
 * @example
 * const results = gradeObservation({ integration_id, environment: 'test', scopes, calls, session, now: Date.now() });
 */
export function gradeObservation(observation: Observation, checks: readonly Check[] = CHECKS): CheckResult[] {
  return checks.map((check) => {
    let outcome: CheckOutcome;
    try {
      outcome = check.grade(observation);
    } catch (error) {
      outcome = { status: 'fail', reason: `grading failed: ${(error as Error).message}`, evidence: [] };
    }
    return resultOf(check, outcome, 0);
  });
}
