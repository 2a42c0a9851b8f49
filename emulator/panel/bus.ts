import type { Emulator } from '../emulator.js';
import { rowWatch } from '../store/sqlite/row-watch.js';

/** What changed, for the panel to fetch again: orders of a store, its webhook deliveries, or the state. */
export type ChangeKind = 'orders' | 'deliveries' | 'state';

export interface PanelChange {
  environment: string | null;
  store_id: string | null;
  kinds: ChangeKind[];
}

type Listener = (change: PanelChange) => void;

/**
 * A tiny in-process emitter between the emulator's writes and the panel's Server-Sent Events.
 * Writes only mark what is dirty (a Set insert, nothing when no panel listens); one flush per turn of
 * the event loop sends the changes, after the writing transaction has committed, so the API pays
 * nothing measurable and a burst of writes becomes one message per store.
 */
export class PanelBus {
  private readonly listeners = new Set<Listener>();
  private readonly dirty = new Map<string, { environment: string | null; storeId: string | null; kinds: Set<ChangeKind> }>();
  private scheduled = false;

  get listening(): boolean {
    return this.listeners.size > 0;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  mark(environment: string | null, storeId: string | null, kind: ChangeKind): void {
    if (!this.listening) return;
    const key = `${environment}|${storeId}`;
    let entry = this.dirty.get(key);
    if (!entry) this.dirty.set(key, (entry = { environment, storeId, kinds: new Set() }));
    entry.kinds.add(kind);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    const changes = [...this.dirty.values()];
    this.dirty.clear();
    for (const c of changes) {
      const change: PanelChange = { environment: c.environment, store_id: c.storeId, kinds: [...c.kinds] };
      for (const listener of this.listeners) listener(change);
    }
  }
}

const buses = new WeakMap<Emulator, PanelBus>();

/** The emulator's panel bus, hooked into its writes the first time it is asked for. */
export function panelBus(emulator: Emulator): PanelBus {
  let bus = buses.get(emulator);
  if (!bus) {
    buses.set(emulator, (bus = new PanelBus()));
    hookWrites(emulator, bus);
  }
  return bus;
}

function hookWrites(emulator: Emulator, bus: PanelBus): void {
  for (const env of Object.values(emulator.envs)) {
    env.events.onInsert((event) => bus.mark(env.name, event.storeId, event.type.startsWith('order.') ? 'orders' : 'state'));
    // Webhook deliveries and attempts are written without an event row: SQLite reports them, from
    // whichever path writes them (the dispatcher, a redelivery, a restore).
    rowWatch(env.db).onWebhookChange((storeId, config) => {
      if (config) bus.mark(env.name, storeId, 'state');
      bus.mark(env.name, storeId, 'deliveries');
    }, () => bus.listening);
  }
  emulator.clock.onAdvance(() => bus.mark(null, null, 'state'));
  emulator.onReset(() => bus.mark(null, null, 'state'));
}
