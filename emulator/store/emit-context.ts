import type { Environment } from '../../src/contract/store.js';
import type { IdFactory } from '../../src/contract/ids.js';
import type { Clock } from '../clock.js';
import type { Outbox } from './port.js';

/**
 * What a transaction's `emit` takes from the emulator around the storage: its clock (an event's
 * time), the environment's ids (seeded runs make the same ids) and the webhooks' outbox once it runs.
 */
export interface EmitContext {
  clock(): Clock;
  ids(env: Environment): IdFactory;
  outbox(): Outbox | null;
}
