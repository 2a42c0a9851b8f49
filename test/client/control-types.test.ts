import { describe, expectTypeOf, it } from 'vitest';
import type { ControlIntegration, ControlStore, EmulatorClock, EmulatorState, RotatedCredential } from '../../src/client/emulator-control.js';
import type { clockView } from '../../emulator/control/system.js';
import type { describeState } from '../../emulator/control/state.js';
import type { integrationView, storeView } from '../../emulator/stores/present.js';
import type { rotateCredential } from '../../emulator/stores/rotate.js';

// The client writes the control API's answers out (src/client/emulator-control.ts) so that its
// declarations never reach the emulator's internals; these checks keep each type equal to what the
// emulator's view returns. They are type-level: the repo's type check (test/typecheck.test.ts, part
// of `npm test`) fails on a difference, in either direction.

/** The type as one plain object (intersections merged, all the way down), so that equal shapes compare equal. */
type Plain<T> = T extends (infer U)[] ? Plain<U>[] : T extends object ? { [K in keyof T]: Plain<T[K]> } : T;

describe("EmulatorControl's answer types match the emulator's views", () => {
  it('EmulatorClock is what clockView returns', () => {
    expectTypeOf<Plain<EmulatorClock>>().toEqualTypeOf<Plain<ReturnType<typeof clockView>>>();
  });

  it('ControlStore is what storeView returns', () => {
    expectTypeOf<Plain<ControlStore>>().toEqualTypeOf<Plain<Awaited<ReturnType<typeof storeView>>>>();
  });

  it('ControlIntegration is what integrationView returns', () => {
    expectTypeOf<Plain<ControlIntegration>>().toEqualTypeOf<Plain<Awaited<ReturnType<typeof integrationView>>>>();
  });

  it('EmulatorState is what describeState returns', () => {
    expectTypeOf<Plain<EmulatorState>>().toEqualTypeOf<Plain<Awaited<ReturnType<typeof describeState>>>>();
  });

  it('RotatedCredential is what rotateCredential returns', () => {
    expectTypeOf<Plain<RotatedCredential>>().toEqualTypeOf<Plain<Awaited<ReturnType<typeof rotateCredential>>>>();
  });
});
