import type { Environment } from '../../../src/contract/store.js';
import type { ChangeFeed } from '../../store/changes.js';
import type { Targets } from './events.js';
import { Kept } from './kept.js';

/**
 * The targets of a store's events (its integrations with their webhooks, and their stamp) kept
 * between units of work, by store, with the store of each order locked (issue 25, fourteenth step:
 * every write that emits read them again, one statement of its round trip, for rows that hardly ever
 * change). Kept targets are never trusted: the emit's writes check their stamp under the feed
 * counter's lock, as they check targets read in the transaction (events.ts `emitWrites`), and a stamp
 * that moved fails the unit of work as a serialization failure; it then runs again with nothing kept
 * (`drop`), reading the targets as they are. So a change that told no process (a restore, a write of
 * another tool) costs one run more, never a wrong event. What this process hears of (its own writes,
 * other processes' notices: a store, integration or credential, a webhook's configuration, a reset)
 * drops them before that. A read that began before such a change is not kept (`epoch`).
 */
export class KeptTargets {
  // Bounded by count only: a store's targets are a few records, an order's store an id.
  private readonly byStore = new Kept<Targets>(MAX_STORES, Infinity, () => 0);
  private readonly storeOfOrder = new Kept<string>(MAX_ORDERS, Infinity, () => 0);
  private moved = 0;

  constructor(feed: ChangeFeed, environment: Environment) {
    const drop = () => this.drop();
    feed.on('auth', (change) => change.environment === environment && drop());
    feed.on('webhooks', (change) => change.config && change.environment === environment && drop());
    feed.on('reset', drop);
  }

  /** Moves with every drop: a read that began at another epoch is not kept. */
  get epoch(): number {
    return this.moved;
  }

  /** The targets kept for `storeId`, as a copy that says so (`kept`). */
  of(storeId: string): Targets | undefined {
    const found = this.byStore.get(storeId);
    return found && { ...found, kept: true };
  }

  /** The store of an order this process locked before (an order's store never changes). */
  storeOf(orderId: string): string | undefined {
    return this.storeOfOrder.get(orderId);
  }

  /** Keeps targets read in a unit of work that began at `epoch` (none when something was dropped since). */
  keep(storeId: string, targets: Targets, epoch: number): void {
    if (epoch === this.moved && !targets.kept) this.byStore.keep(storeId, targets);
  }

  orderIn(orderId: string, storeId: string): void {
    this.storeOfOrder.keep(orderId, storeId);
  }

  /** Forgets every store's targets (the orders' stores stay true). */
  drop(): void {
    this.moved++;
    this.byStore.clear();
  }
}

const MAX_STORES = 1000;
const MAX_ORDERS = 10_000;
