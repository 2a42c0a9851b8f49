import type { Emulator } from '../emulator.js';

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
  private unwatch: (() => void) | null = null;

  /** `watch()` starts listening to what costs to report (webhook rows) while a panel is open; it answers how to stop. */
  constructor(private readonly watch: (bus: PanelBus) => () => void = () => () => undefined) {}

  get listening(): boolean {
    return this.listeners.size > 0;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    this.unwatch ??= this.watch(this);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.unwatch) {
        this.unwatch();
        this.unwatch = null;
      }
    };
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
    buses.set(emulator, (bus = new PanelBus((b) => watchWebhooks(emulator, b))));
    hookWrites(emulator, bus);
  }
  return bus;
}

/**
 * What the storage reports (events written — from whichever path and, on a shared database,
 * whichever process), the clock's moves and resets: what the panel fetches again.
 */
function hookWrites(emulator: Emulator, bus: PanelBus): void {
  const changes = emulator.storage.changes;
  changes.on('events', (c) => bus.mark(c.environment, c.storeId, c.type.startsWith('order.') ? 'orders' : 'state'));
  changes.on('clock', () => bus.mark(null, null, 'state'));
  changes.on('reset', () => bus.mark(null, null, 'state'));
  emulator.clock.onAdvance(() => bus.mark(null, null, 'state'));
  emulator.onReset(() => bus.mark(null, null, 'state'));
}

/**
 * Webhook deliveries and attempts are written without an event row: the storage reports them (from
 * the dispatcher, a redelivery, a restore), at a cost (the row's store is looked up), so only while a
 * panel is open.
 */
function watchWebhooks(emulator: Emulator, bus: PanelBus): () => void {
  return emulator.storage.changes.on('webhooks', (c) => {
    if (c.config) bus.mark(c.environment, c.storeId, 'state');
    bus.mark(c.environment, c.storeId, 'deliveries');
  });
}
