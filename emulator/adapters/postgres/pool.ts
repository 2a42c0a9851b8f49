import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { StorageUnavailableError } from './errors.js';

export interface PoolOptions extends pg.ClientConfig {
  /** The connection class (connect.ts: batching, counting, describing). */
  Client: new (config: pg.ClientConfig) => pg.Client;
  /** Connections at most, open or opening. */
  max: number;
  /** A connection idle this long is closed (the next statement opens a new one). */
  idleTimeoutMillis: number;
  /** How long a new connection may take to open (the driver's own limit). */
  connectionTimeoutMillis?: number;
  /** How long a checkout waits for a busy pool's connection before failing as unavailable (by default connectionTimeoutMillis, as pg-pool). */
  waitTimeoutMillis?: number;
  /** Checkouts waiting at most; one more fails at once as unavailable (503) instead of queueing. */
  maxWaiting: number;
}

/** A connection of the pool, handed out until `release`. */
type Pooled = pg.PoolClient & { idleSince: number; out: boolean };

interface Waiter {
  resolve(client: Pooled): void;
  reject(error: unknown): void;
  deadline: number;
}

/** node-postgres's own fields: a connection that broke or is closing takes no more statements. */
const usable = (client: pg.Client): boolean => {
  const c = client as unknown as { _queryable?: boolean; _ending?: boolean };
  return c._queryable !== false && !c._ending;
};

/**
 * The adapter's pool of connections (issue 25): idle ones in an array, handed out and taken back
 * without events, listeners or timers per checkout. pg-pool, for each statement of the pool, adds and
 * removes an error listener, emits `acquire` and `release`, and starts and clears two timers (the
 * checkout's wait and the connection's idle time); here one timer watches the waiting checkouts and
 * one the idle connections, each armed only while there is something to watch.
 *
 * As pg-pool: the last connection released is the first handed out; a checkout waits in line
 * (first come, first served) when all `max` are busy; a connection released with an error, or broken,
 * is closed and the next checkout opens a new one; an idle one's error (the server restarting) is
 * emitted as the pool's `error` and the connection dropped. Unlike it: the line is bounded
 * (`maxWaiting`), and a waiter is called back as a promise, in its own asynchronous context.
 */
export class Pool extends EventEmitter {
  private readonly idle: Pooled[] = [];
  private readonly clients = new Set<Pooled>();
  private readonly waiting: Waiter[] = [];
  private readonly closing = new Set<Promise<void>>();
  private waitTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private ending: Promise<void> | null = null;
  private ended: (() => void) | null = null;

  constructor(readonly options: PoolOptions) {
    super();
  }

  get totalCount(): number {
    return this.clients.size;
  }

  get idleCount(): number {
    return this.idle.length;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  /** A connection for a unit of work, to `release()` after it (`release(error)` closes it). */
  connect(): Promise<pg.PoolClient> {
    if (this.ending) return Promise.reject(new Error('Cannot use a pool after calling end on the pool'));
    const client = this.take();
    if (client) return Promise.resolve(client);
    if (this.clients.size < this.options.max) return this.open();
    if (this.waiting.length >= this.options.maxWaiting) {
      return Promise.reject(new StorageUnavailableError(`${this.waiting.length} statements waiting for a connection`));
    }
    const patience = this.options.waitTimeoutMillis ?? this.options.connectionTimeoutMillis;
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject, deadline: patience ? Date.now() + patience : Infinity });
      if (patience && !this.waitTimer) this.armWaitTimer();
    });
  }

  /** One statement (or text) on a connection of its own, released after it: closed if it failed, as pg-pool does. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const args = values === undefined ? [config] : [config, values];
    const client = this.take();
    if (client) return this.runOn(client, args);
    return this.connect().then((c) => this.runOn(c as Pooled, args));
  }

  /** Closes every connection: idle ones now, busy ones when released. Waiters fail. */
  end(): Promise<void> {
    if (this.ending) return this.ending;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error('Cannot use a pool after calling end on the pool'));
    this.clearTimers();
    this.ending = new Promise<void>((resolve) => {
      this.ended = resolve;
    }).then(() => Promise.all([...this.closing]).then(() => undefined));
    for (const client of this.idle.splice(0)) this.drop(client);
    if (this.clients.size === 0) this.ended?.();
    return this.ending;
  }

  private runOn(client: Pooled, args: unknown[]): Promise<never> {
    let settled: Promise<never>;
    try {
      settled = (client.query as (...a: unknown[]) => Promise<never>)(...args);
    } catch (error) {
      client.release(error as Error);
      return Promise.reject(error);
    }
    return settled.then(
      (result) => {
        client.release();
        return result;
      },
      (error: unknown) => {
        client.release((error ?? true) as Error);
        throw error;
      },
    );
  }

  /** The last idle connection still usable, checked out; undefined when none. */
  private take(): Pooled | undefined {
    for (let client = this.idle.pop(); client; client = this.idle.pop()) {
      if (usable(client)) {
        client.out = true;
        return client;
      }
      this.drop(client);
    }
    return undefined;
  }

  private open(): Promise<pg.PoolClient> {
    const client = new this.options.Client(this.options) as Pooled;
    client.out = true;
    client.idleSince = 0;
    client.release = (error?: Error | boolean) => this.release(client, error);
    // Always listened to: an error nobody awaits (the server restarting) must not end the process.
    client.on('error', (error) => this.broke(client, error));
    this.clients.add(client);
    return client.connect().then(
      () => {
        if (!this.ending) return client;
        this.drop(client);
        throw new Error('Cannot use a pool after calling end on the pool');
      },
      (error: unknown) => {
        this.clients.delete(client);
        this.afterDrop();
        throw error;
      },
    );
  }

  private release(client: Pooled, error?: Error | boolean): void {
    if (!client.out) throw new Error('Release called on client which has already been released to the pool.');
    client.out = false;
    if (error || this.ending || !usable(client)) {
      this.drop(client);
      return;
    }
    const waiter = this.waiting.shift();
    if (waiter) {
      client.out = true;
      waiter.resolve(client);
      return;
    }
    client.idleSince = Date.now();
    this.idle.push(client);
    if (!this.idleTimer) this.armIdleTimer(this.options.idleTimeoutMillis);
  }

  /** An idle connection that broke is dropped and told as the pool's error; a busy one fails its statement. */
  private broke(client: Pooled, error: unknown): void {
    if (client.out || !this.clients.has(client)) return;
    this.drop(client);
    this.emit('error', error, client);
  }

  private drop(client: Pooled): void {
    if (!this.clients.delete(client)) return;
    const at = this.idle.indexOf(client);
    if (at >= 0) this.idle.splice(at, 1);
    const closed = client.end().catch(() => undefined);
    this.closing.add(closed);
    void closed.then(() => this.closing.delete(closed));
    this.afterDrop();
  }

  /** Room for a connection: the next waiter opens one; the pool ends once the last is gone. */
  private afterDrop(): void {
    if (this.ending) {
      if (this.clients.size === 0) this.ended?.();
      return;
    }
    const waiter = this.waiting.length > 0 && this.clients.size < this.options.max ? this.waiting.shift() : undefined;
    if (waiter) this.open().then((c) => waiter.resolve(c as Pooled), waiter.reject);
  }

  /** One timer for the line: it fails the waiters past their deadline (the oldest first), then waits for the next. */
  private armWaitTimer(): void {
    const first = this.waiting[0];
    if (!first || first.deadline === Infinity) return;
    this.waitTimer = setTimeout(() => {
      this.waitTimer = null;
      const now = Date.now();
      while (this.waiting.length > 0 && this.waiting[0]!.deadline <= now) {
        this.waiting.shift()!.reject(new Error('timeout exceeded when trying to connect'));
      }
      this.armWaitTimer();
    }, Math.max(first.deadline - Date.now(), 1));
    this.waitTimer.unref();
  }

  /** One timer for the idle connections: it closes those idle too long (the oldest first), then waits for the next. */
  private armIdleTimer(after: number): void {
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      const limit = Date.now() - this.options.idleTimeoutMillis;
      while (this.idle.length > 0 && this.idle[0]!.idleSince <= limit) this.drop(this.idle[0]!);
      const oldest = this.idle[0];
      if (oldest) this.armIdleTimer(Math.max(oldest.idleSince - limit, 1));
    }, after);
    this.idleTimer.unref();
  }

  private clearTimers(): void {
    if (this.waitTimer) clearTimeout(this.waitTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.waitTimer = this.idleTimer = null;
  }
}
