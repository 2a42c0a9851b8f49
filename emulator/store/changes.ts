import type { Environment } from '../../src/contract/store.js';

/**
 * What changed, for whoever keeps something derived from the state: the caches of authentication
 * and presented texts, the panel's live updates, resets. Every change names its environment (null
 * for the emulator as a whole: the clock, a reset).
 */
export type Change =
  /** A store, integration or credential row (what authentication reads). */
  | { topic: 'auth'; environment: Environment }
  /** The catalog of a store (products, option groups, options, categories). */
  | { topic: 'catalog'; environment: Environment; storeId: string | null }
  /** One order (its row or its history); the store when the write names it. */
  | { topic: 'orders'; environment: Environment; storeId: string | null; orderId: string }
  /** A webhook's configuration (`config`), or its deliveries and attempts. */
  | { topic: 'webhooks'; environment: Environment; storeId: string | null; config: boolean }
  /** An event was written for the store. */
  | { topic: 'events'; environment: Environment; storeId: string; type: string }
  /** The emulator's clock moved or changed mode. */
  | { topic: 'clock'; environment: null }
  /** The whole sandbox's state was replaced: emptied by a reset (then seeded again), or loaded from a bundle. */
  | { topic: 'reset'; environment: null };

export type Topic = Change['topic'];
export type ChangeOf<T extends Topic> = Extract<Change, { topic: T }>;
export type ChangeListener<T extends Topic> = (change: ChangeOf<T>) => void;

export interface ChangeFeed {
  /**
   * True when every write is published before a later read can start (one process on the embedded
   * database): caches filled from reads stay exact. False when changes arrive from other processes
   * some time after their commit; caches of presented data are then not used.
   */
  readonly exact: boolean;
  on<T extends Topic>(topic: T, listener: ChangeListener<T>): () => void;
  /** Moves with every change of the topic in this process (a cache fill checks it did not move meanwhile). */
  version(topic: Topic): number;
}

/** The in-process feed: `publish` calls the listeners at once. */
export class LocalChangeFeed implements ChangeFeed {
  private readonly listeners = new Map<Topic, Set<(change: Change) => void>>();
  private readonly versions = new Map<Topic, number>();

  constructor(readonly exact = true) {}

  on<T extends Topic>(topic: T, listener: ChangeListener<T>): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    const entry = listener as (change: Change) => void;
    set.add(entry);
    return () => set.delete(entry);
  }

  version(topic: Topic): number {
    return this.versions.get(topic) ?? 0;
  }

  /** Whether anyone listens to the topic (a costly change report can be skipped when nobody does). */
  listening(topic: Topic): boolean {
    return (this.listeners.get(topic)?.size ?? 0) > 0;
  }

  publish(change: Change): void {
    this.versions.set(change.topic, (this.versions.get(change.topic) ?? 0) + 1);
    const set = this.listeners.get(change.topic);
    if (set) for (const listener of set) listener(change);
  }
}
