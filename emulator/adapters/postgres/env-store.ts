import type { Environment } from '../../../src/contract/store.js';
import type { EventType } from '../../../src/contract/events.js';
import type { EventData, EventRecord } from '../../orders/repository.js';
import type { Change } from '../../store/changes.js';
import { emitEvents, type EmitContext } from '../../store/emit.js';
import type { EnvStore, Tx } from '../../store/port.js';
import { QueryConn, statement, TxConn, type Queryable } from './conn.js';
import { ClaimAnswered, type Claim, type WorkClaim } from '../../store/coordination.js';
import { checkoutOrUnavailable, staleTries, type Pool, type PoolClient } from './connect.js';
import { CONTENTION_RUNS, contended, DEADLOCK, isDriverUnavailable, SERIALIZATION_FAILURE, sessionGone, sqlState, translate, UNIQUE_VIOLATION } from './errors.js';
import type { PgChangeFeed } from './changes.js';
import { environmentSql, LazyRepositories, type EnvironmentSql } from './repositories.js';
import { emitWrites, type EmitTarget, type PendingDelivery, type PendingEvent, type PgEventsRepository, type Targets, type TargetsCheck, type Write } from './events.js';
import type { EventsRepository, HistoryRecord, OrdersRepository } from '../../orders/repository.js';
import { pgOrders } from './orders.js';
import type { IntegrationsRepository, StoresRepository } from '../../stores/repository.js';
import type { WebhooksRepository } from '../../webhooks/repository.js';
import { runAfterCommit } from '../../store/after-commit.js';
import { KeptTargets } from './kept-targets.js';

export interface PgEnvOptions {
  environment: Environment;
  schema: string;
  pool: Pool;
  feed: PgChangeFeed;
  context: EmitContext;
}

/**
 * How many times a unit of work runs at most. It is run again, from the start on a new transaction,
 * after an error that only says another transaction got in the way; each is safe to retry because a
 * unit of work has no effect outside its transaction (no network inside one, `afterCommit` hooks of a
 * failed run are dropped, an id it drew and threw away is just unused):
 * - 40001 serialization failure and 40P01 deadlock: PostgreSQL rolled this transaction back so the
 *   other could go on; run again, it sees the other's committed writes and decides anew.
 * - 23505 unique violation: a concurrent transaction inserted the same key first (two processes
 *   creating the same category code, entrega request key, order history step). Run again, the work
 *   reads the row that now exists and takes its "already there" path (update, replay, conflict). A
 *   duplicate that is not a race fails the same way each time, and that error is thrown at the end.
 */
export const MAX_RUNS = CONTENTION_RUNS;
const RETRIED = new Set([SERIALIZATION_FAILURE, DEADLOCK, UNIQUE_VIOLATION]);
/** 25P02: a statement sent after another failed in the same transaction. */
const IN_FAILED_TRANSACTION = '25P02';

/** One environment in its schema: repositories on the pool, and transactions on one pooled connection. */
export class PgEnvStore extends LazyRepositories implements EnvStore {
  constructor(private readonly options: PgEnvOptions) {
    // Outside a transaction each write commits at once: its change is published and told then.
    const committed = (change: Change, told?: boolean) => {
      options.feed.publish([change]);
      if (!told) void options.feed.notify(options.pool, [change]);
    };
    const conn = new QueryConn(options.pool as never, committed, undefined, (change) => options.feed.noticeParts(change));
    super(options.environment, conn, environmentSql(options.schema));
    this.kept = new KeptTargets(options.feed, options.environment);
  }

  /** The targets of the stores' events, kept between units of work (their writes check them). */
  private readonly kept: KeptTargets;

  async tx<T>(work: (tx: Tx) => Promise<T>, claim?: WorkClaim): Promise<T> {
    let stale = 0;
    for (let run = 1; ; run++) {
      const client = await checkoutOrUnavailable(this.options.pool);
      const tx = new PgTx(this.options, client, this.sql, this.kept);
      let out: T;
      let began: Promise<unknown> | undefined;
      let claimed: Promise<Claim> | undefined;
      try {
        // An idempotency key's claim goes first, on this connection and outside the transaction (it
        // commits on its own, as the route's would: a concurrent duplicate sees it at once), in the
        // same socket write as BEGIN and the work's first statement: no round trip of its own. When
        // it does not take the key, the work's later statements are refused unsent (`stop`) and the
        // transaction rolls back: nothing of the work is written. A later run finds it taken.
        claimed = claim?.takeOn(client, () => tx.stop());
        // BEGIN goes out with the work's first statement (the driver sends it once BEGIN is answered):
        // no round trip of its own. It fails only with the connection, and then so does that statement.
        began = client.query('BEGIN').then(() => undefined, (error: unknown) => error ?? new Error('BEGIN failed'));
        out = await work(tx);
        if (claimed) await answered(claimed);
        const notBegun = await began;
        if (notBegun !== undefined) throw notBegun;
        // A statement failed and the work went on (it caught the error): PostgreSQL has aborted the
        // transaction, and COMMIT would quietly roll back. The failure is the outcome.
        if (tx.failure !== undefined) throw tx.failure;
        // The emit's writes, the key's answer (when the request knows it from `out`) and the notices,
        // as named statements, then COMMIT: one socket write, one round trip.
        const answer = claim?.answerWrite?.(out);
        const notices = this.options.feed.notices(tx.changes).map((values): Write => ({ statement: NOTIFY_STATEMENT, values }));
        const written = tx.sendWrites(answer ? [answer, ...notices] : notices);
        await client.query('COMMIT');
        await written;
        // A write sent without waiting failed after the check above: COMMIT answered as ROLLBACK.
        if (tx.failure !== undefined) throw tx.failure;
        claim?.committed?.();
      } catch (error) {
        const broken = isDriverUnavailable(error);
        if (!broken) await client.query('ROLLBACK').catch(() => undefined);
        // A connection that broke is dropped from the pool (the next one is opened anew).
        client.release(broken ? true : undefined);
        // A connection whose session the server had ended while it sat idle in the pool: nothing of
        // the work reached the server, so it runs again on another (this is no run of its own).
        if (sessionGone(await began) && ++stale < staleTries(this.options.pool)) {
          // The key's claim went first on that connection and failed with it (nothing was claimed):
          // once its failure has settled, the next run sends it again on the next connection.
          await claimed?.catch(() => undefined);
          run--;
          continue;
        }
        // A key this request does not hold answers it, whatever the work made of its refused statements.
        if (claimed) await answered(claimed);
        // The claim's first INSERT did not take the key but a later try did (the key's row was released
        // in between): the work, stopped meanwhile, runs again with the key now held.
        if (tx.failure === REFUSED) {
          run--;
          continue;
        }
        const cause = tx.failure ?? error;
        // Targets kept from an earlier unit of work may be what failed the check: the next run reads them.
        if (sqlState(cause) === SERIALIZATION_FAILURE) this.kept.drop();
        if (run < MAX_RUNS && RETRIED.has(sqlState(cause) ?? '')) {
          await pause(run);
          continue;
        }
        // A statement refused because an earlier one (maybe sent without waiting) failed: that earlier
        // failure is the outcome. Any other error is the work's own answer, as it threw it. Contention
        // that outlasted every run answers as a busy database (503), never a 500 (errors.ts).
        throw translate(contended(sqlState(error) === IN_FAILED_TRANSACTION ? cause : error));
      }
      client.release();
      this.options.feed.publish(tx.changes);
      tx.committed();
      return out;
    }
  }
}

/**
 * `repository` with its `reader` (one id in, one record out) answering from `read` when the id is
 * there; any other call forgets what was read (it may be a write to these rows).
 */
function readThrough<R extends object, K extends keyof R>(
  repository: R, read: Map<string, EmitTarget>, reader: K, pick: (t: EmitTarget) => unknown, keeps: readonly string[] = [],
): R {
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(repository)) {
    if (typeof member !== 'function') {
      out[name] = member;
      continue;
    }
    const call = (member as (...args: unknown[]) => unknown).bind(repository);
    out[name] =
      name === reader
        ? (id: string, ...rest: unknown[]) => {
            const target = read.get(id);
            return target && rest.length === 0 ? Promise.resolve(pick(target)) : call(id, ...rest);
          }
        : keeps.includes(name)
          ? call
          : (...args: unknown[]) => {
              read.clear();
              return call(...args);
            };
  }
  return out as R;
}

/** Throws `ClaimAnswered` when the claim did not take the key (its failure, when it failed). */
async function answered(claimed: Promise<Claim>): Promise<void> {
  const taken = await claimed;
  if (taken.kind !== 'fresh') throw new ClaimAnswered(taken);
}

/** The error of a statement a transaction refused to send: its claim did not take the key (`PgTx.stop`). */
const REFUSED = new Error('the idempotency key is not this request\'s: the unit of work sends nothing more');

/** A short random pause before running again, growing with each run: two colliding transactions part ways. */
const pause = (run: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * run));

/** What a transaction gathers while it runs: its changes (told at commit) and its first failed statement. */
interface TxState {
  changes: Change[];
  failure: unknown;
  /** Set when the transaction must send nothing more (`PgTx.stop`). */
  stopped: boolean;
}

/**
 * An emit's writes held back until the transaction's next statement or its COMMIT (issue 25): the
 * events and the deliveries the outbox queued for them, and the emits' targets as they read them.
 * Their positions are taken by the statements that write them (`emitWrites`): sent with the COMMIT,
 * the feed counter's lock is taken and released inside one round trip of the server's.
 */
class EmitWrites {
  events: PendingEvent[] = [];
  deliveries: PendingDelivery[] = [];
  checks: TargetsCheck[] = [];
  /** The latest clock reading of the transaction's events so far: the least time of the next. */
  floor = Number.NEGATIVE_INFINITY;
  held = false;

  constructor(private readonly schema: string) {}

  /** Holds `record` back; it is written (and its position and time set) with the rest. */
  hold(record: EventRecord): void {
    this.floor = Math.max(this.floor, record.createdAt);
    this.events.push({ record, floor: this.floor });
  }

  /** The statements that write them (none when there is nothing), and forgets them. */
  take(): Write[] {
    if (this.events.length === 0) return [];
    const writes = emitWrites(this.schema, this.events, this.deliveries, this.checks);
    this.events = [];
    this.deliveries = [];
    this.checks = [];
    return writes;
  }
}

/**
 * Queues `writes` on the transaction's connection without waiting (pipeline mode: they leave with the
 * statement queued after them in this turn). Their failure is recorded as the transaction's
 * (`raw`'s onFailure); the promise settles when all are answered and never rejects.
 */
function sendWrites(raw: QueryConn, writes: readonly Write[], state: TxState): Promise<unknown> {
  if (writes.length === 0) return Promise.resolve();
  return Promise.all(writes.map((w) => {
    const sent = w.answer ? raw.rows<Record<string, unknown>>(w.statement, w.values).then(w.answer) : raw.run(w.statement, w.values);
    return sent.catch((error: unknown) => {
      state.failure ??= error;
    });
  }));
}

/** A notice of a transaction's changes (PgChangeFeed.notices), delivered by PostgreSQL at its commit. */
const NOTIFY_STATEMENT = statement('SELECT pg_notify($1, $2)');

/** The connection as the transaction's statements see it: closed once the transaction stopped. */
function stoppable(client: PoolClient, state: TxState): Queryable {
  const db = client as unknown as Queryable;
  return {
    query: ((q: never) => (state.stopped ? Promise.reject(REFUSED) : db.query(q))) as Queryable['query'],
  };
}

class PgTx extends LazyRepositories implements Tx {
  private hooks: (() => void)[] | null = null;
  private readonly writes: EmitWrites;

  constructor(
    private readonly options: PgEnvOptions,
    client: PoolClient,
    sql: EnvironmentSql,
    private readonly kept: KeptTargets,
    private readonly state: TxState = { changes: [], failure: undefined, stopped: false },
    writes = new EmitWrites(options.schema),
    raw = new QueryConn(stoppable(client, state), (change) => state.changes.push(change), (error) => {
      state.failure ??= error;
    }),
  ) {
    // Any statement of the transaction first writes what its emits held back: it sees them. They are
    // sent here, pipelined ahead of it (nothing is left for TxConn to send as a text): the server runs
    // them in order, and a failure of theirs fails the transaction (the connection's onFailure).
    super(options.environment, new TxConn(raw, () => (sendWrites(raw, writes.take(), state), ''), state.changes), sql);
    this.writes = writes;
    this.raw = raw;
  }

  private readonly raw: QueryConn;

  get changes(): Change[] {
    return this.state.changes;
  }

  get failure(): unknown {
    return this.state.failure;
  }

  /** From now on every statement of the work fails unsent, and the transaction with them. */
  stop(): void {
    this.state.stopped = true;
    this.state.failure ??= REFUSED;
  }

  /**
   * Sends the emits' writes not sent yet, and `more` (the key's answer, the notices), without waiting: they go out
   * with the COMMIT queued right after them, in the same socket write. Settles once they are answered
   * (never rejects: a failure is the transaction's, `failure`).
   */
  sendWrites(more: readonly Write[]): Promise<unknown> {
    return sendWrites(this.raw, [...this.writes.take(), ...more], this.state);
  }

  afterCommit(fn: () => void): void {
    (this.hooks ??= []).push(fn);
  }

  async emit<T extends EventType>(type: T, storeId: string, data: EventData<T>, integrationId?: string): Promise<EventRecord[]> {
    // The event's targets with their webhooks: read ahead (with an order's lock or number), kept from
    // an earlier unit of work, or read now, without a lock (their stamp is checked again by the
    // writes, under the feed counter's lock: events.ts `emitWrites`), then the clock. The events and
    // their deliveries are held back and written with the COMMIT (EmitWrites), where their positions
    // are taken.
    const ahead = integrationId ? undefined : this.targetsAhead.get(storeId);
    this.targetsAhead.delete(storeId);
    const read = await (ahead ?? (integrationId ? undefined : this.keptOf(storeId)) ?? this.readTargets(storeId, integrationId));
    this.writes.held = true;
    this.writes.checks.push({ storeId, integrationId: integrationId ?? null, stamp: read.stamp });
    // What the outbox reads of each target (its webhook, its integration), read with them.
    for (const target of read.targets) this.read.set(target.integration.id, target);
    const targets = integrationId ? undefined : read.targets.map((t) => t.integration.id);
    const emitted = emitEvents(this, this.options.context, (change) => this.changes.push(change), { type, storeId, data, integrationId }, targets);
    if (!read.kept) return emitted;
    // Kept targets answer the outbox (what it reads of them is what their stamp covers), not the rest
    // of the unit of work: their other fields may be older than this transaction.
    try {
      return await emitted;
    } finally {
      for (const target of read.targets) if (this.read.get(target.integration.id) === target) this.read.delete(target.integration.id);
    }
  }

  /** A store's kept targets, unless this transaction wrote a store, integration, credential or webhook's configuration. */
  private keptOf(storeId: string): Targets | undefined {
    return this.wroteTargets() ? undefined : this.kept.of(storeId);
  }

  /** From the transaction's changes, as `TxConn.wrote` answers for the catalog. */
  private wroteTargets(): boolean {
    return this.changes.some((c) => c.topic === 'auth' || c.topic === 'reset' || (c.topic === 'webhooks' && c.config));
  }

  /** Reads the targets (the statement leaves now) and keeps a store's for later units of work. */
  private readTargets(storeId: string, integrationId?: string): Promise<Targets> {
    const epoch = this.kept.epoch;
    const read = (super.events as PgEventsRepository).targetsFor(storeId, integrationId);
    return integrationId ? read : read.then((targets) => this.keepRead(storeId, targets, epoch));
  }

  private keepRead(storeId: string, targets: Targets, epoch: number): Targets {
    if (!this.wroteTargets()) this.kept.keep(storeId, targets, epoch);
    return targets;
  }

  /**
   * Integrations and webhooks this transaction read for its emits, by integration id: its
   * reads of them answer from here (they are the transaction's own reads) until it writes either.
   */
  private readonly read = new Map<string, EmitTarget>();
  private integrationsRead: IntegrationsRepository | null = null;
  private webhooksRead: WebhooksRepository | null = null;
  private eventsHeld: EventsRepository | null = null;

  override get integrations(): IntegrationsRepository {
    return (this.integrationsRead ??= readThrough(super.integrations, this.read, 'byId', (t) => t.integration));
  }

  override get webhooks(): WebhooksRepository {
    if (this.webhooksRead) return this.webhooksRead;
    const repository = readThrough(super.webhooks, this.read, 'get', (t) => t.webhook, ['insertDelivery']);
    const writes = this.writes;
    const insertDelivery: WebhooksRepository['insertDelivery'] = (delivery, at) => {
      // A delivery of an event held back is held back with it; any other is written now.
      const event = writes.events.find((e) => e.record.id === delivery.eventId)?.record;
      if (!event) return repository.insertDelivery(delivery, at);
      writes.deliveries.push({ delivery, at });
      this.changes.push({ topic: 'webhooks', environment: this.environment, storeId: event.storeId, config: false });
      return Promise.resolve();
    };
    return (this.webhooksRead = { ...repository, insertDelivery });
  }

  /** A store's targets read ahead of its next emit (`stores.nextOrderNumber`), by store id. */
  private readonly targetsAhead = new Map<string, Promise<Targets>>();
  private storesKept: StoresRepository | null = null;

  override get stores(): StoresRepository {
    if (this.storesKept) return this.storesKept;
    const repository = super.stores;
    // An order's number is taken for its `order.created` event (orders/simulator.ts, with the cart's
    // reads): the event's targets (unless kept) are read in the same round trip, sent just before the
    // number's UPDATE, which locks the store's row until the COMMIT. The emit then sends nothing of its
    // own while the row is locked (issue 25, tenth step); its writes check the targets again, as any emit's.
    const nextOrderNumber: StoresRepository['nextOrderNumber'] = (storeId) => {
      const kept = this.keptOf(storeId);
      const ahead = kept ? Promise.resolve(kept) : this.readTargets(storeId);
      ahead.catch(() => undefined);
      this.targetsAhead.set(storeId, ahead);
      return repository.nextOrderNumber(storeId);
    };
    return (this.storesKept = { ...repository, nextOrderNumber });
  }

  /** The histories this transaction read with its orders' locks, or wrote (orders.ts `pgOrders`). */
  private readonly histories = new Map<string, HistoryRecord[]>();
  private ordersKept: OrdersRepository | null = null;

  override get orders(): OrdersRepository {
    if (this.ordersKept) return this.ordersKept;
    const repository = pgOrders(this.conn, this.sql.orders, this.environment, this.histories);
    const events = super.events as PgEventsRepository;
    // An order is locked to be changed, and the change emits an event to the order's store: the
    // event's targets are read in the same round trip, sent just before the lock (issue 25, eleventh
    // step: a status change or an ack in three round trips, not four). As for an order's number,
    // the emit then reads nothing of its own, and its writes check the targets again under the
    // feed counter's lock. Targets kept for the order's store (known from an earlier lock of the
    // order, or its insert) need no read at all.
    const byId: OrdersRepository['byId'] = async (id, options) => {
      if (!options?.lock) return repository.byId(id, options);
      const known = this.kept.storeOf(id);
      const kept = known === undefined ? undefined : this.keptOf(known);
      const epoch = this.kept.epoch;
      const ahead = kept ? undefined : events.targetsOfOrder(id);
      ahead?.catch(() => undefined);
      const order = await repository.byId(id, options);
      if (!order) return order;
      this.kept.orderIn(id, order.storeId);
      if (kept && order.storeId === known) this.targetsAhead.set(order.storeId, Promise.resolve(kept));
      else if (ahead) {
        const read = ahead.then((targets) => this.keepRead(order.storeId, targets, epoch));
        read.catch(() => undefined);
        this.targetsAhead.set(order.storeId, read);
      }
      return order;
    };
    const insert: OrdersRepository['insert'] = (order, entry) => {
      this.kept.orderIn(order.id, order.storeId);
      return repository.insert(order, entry);
    };
    return (this.ordersKept = { ...repository, byId, insert });
  }

  override get events(): EventsRepository {
    if (this.eventsHeld) return this.eventsHeld;
    const repository = super.events;
    const writes = this.writes;
    // An emit's event is held back: its position is taken with the COMMIT (its `seq` is set then).
    const insert: EventsRepository['insert'] = (event) => {
      if (!writes.held) return repository.insert(event);
      const record: EventRecord = { ...event, seq: 0 };
      writes.hold(record);
      return Promise.resolve(record);
    };
    return (this.eventsHeld = { ...repository, insert });
  }

  /** Runs the after-commit hooks; one that throws does not keep the others from running. */
  committed(): void {
    runAfterCommit(this.hooks);
  }
}
