import type { RunContext } from './context.js';
import type { Observation } from '../src/contract/observation.js';
import type { CheckMeta, CheckOutcome } from './types.js';

/**
 * One homologation check: its definition, `run` (the CLI as the reference integrator, against an
 * emulator or a real environment) and `grade` (the emulator's observer, from an integration's own
 * calls). `grade` is pure: `pending` until the evidence is there, `fail` as soon as it is decisive.
 */
export interface Check extends CheckMeta {
  run(ctx: RunContext): Promise<CheckOutcome>;
  grade(observation: Observation): CheckOutcome;
}
