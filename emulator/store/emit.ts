import type { Environment } from '../../src/contract/store.js';
import type { IdFactory } from '../../src/contract/ids.js';
import type { Clock } from '../clock.js';
import type { EventType } from '../../src/contract/events.js';
import type { EventData, EventRecord } from '../orders/repository.js';
import type { ChangeOf } from './changes.js';
import type { Outbox, Tx } from './port.js';

/**
 * What a transaction's `emit` takes from the emulator around the storage: its clock (an event's
 * time), the environment's ids (seeded runs make the same ids) and the webhooks' outbox once it runs.
 */
export interface EmitContext {
  clock(): Clock;
  ids(env: Environment): IdFactory;
  outbox(): Outbox | null;
}

/**
 * `Tx.emit`, written once for every adapter: an event per integration of the store (or only
 * `integrationId`), each written and handed to the outbox in the transaction `tx`. The store's
 * `events` change goes to `told`, which the adapter publishes once the transaction has committed.
 */
export async function emitEvents<T extends EventType>(
  tx: Tx,
  context: EmitContext,
  told: (change: ChangeOf<'events'>) => void,
  event: { type: T; storeId: string; data: EventData<T>; integrationId?: string },
  /** The store's integrations when the adapter read them already (ids, in `byStore`'s order). */
  storeTargets?: string[],
): Promise<EventRecord[]> {
  const { type, storeId, data, integrationId } = event;
  const targets = integrationId ? [integrationId] : (storeTargets ?? (await tx.integrations.byStore(storeId)).map((i) => i.id));
  const environment = tx.environment;
  const ids = context.ids(environment);
  const outbox = context.outbox();
  const now = context.clock().now();
  const written: EventRecord[] = [];
  for (const target of targets) {
    const record = await tx.events.insert({ id: ids.next('event'), type, storeId, integrationId: target, createdAt: now, data });
    if (outbox) await outbox(tx, record);
    written.push(record);
  }
  if (written.length > 0) told({ topic: 'events', environment, storeId, type });
  return written;
}
