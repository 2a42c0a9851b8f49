import pg from 'pg';
import { CONTENTION_RUNS, contended, contentionPause, isContention, reasonOf, sessionGone, translate } from './errors.js';
import { Pool } from './pool.js';
import { CountingClient } from './round-trips.js';

export type { Pool };
export type PoolClient = pg.PoolClient;
export type Client = pg.Client;

const INT8 = 20;

/**
 * Amounts, times (ms since the epoch) and counters are `bigint` columns: they come back as JS
 * numbers, as on SQLite (every value the emulator stores is far below 2^53). The parser is this
 * adapter's own (no change to the driver's global table, which another library in the process may use).
 */
const toNumber = (value: string) => Number(value);

const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 && format !== 'binary') return toNumber;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as unknown as pg.CustomTypesConfig;

export interface ConnectOptions {
  /** Connections per process (each process of a sandbox has its own pool). */
  poolSize?: number;
  /** How long an operation waits for a connection before failing as unavailable. */
  connectTimeoutMs?: number;
  /** Operations waiting for a connection at most; one more fails at once as unavailable (503). */
  maxWaiting?: number;
}

/**
 * Connections a process's pool opens at most (issue 25). A connection is held from the statement
 * until this process's one thread has read the answer, so under load most of them wait on the event
 * loop, not on the server: with 10, every one was busy and 20 statements waited in line at the mixed
 * bench's 32 connections, and 20 served 7–8 % more requests a second at 9–12 % less of the emulator's
 * CPU a request (bench/README.md, thirteenth step); 32 served fewer. Idle ones close after 30 s.
 */
export const POOL_SIZE = 20;

/** The line of a pool of 20: fifty waiters a connection, past which waiting only adds to the answer's time. */
const MAX_WAITING = 1000;

/** The URL as it may be shown: without its password. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '';
    return u.toString().replace(/:@/, '@');
  } catch {
    return 'the given database URL';
  }
}

export function clientConfig(url: string, options: ConnectOptions = {}): pg.ClientConfig {
  return {
    connectionString: url,
    types: TYPES,
    application_name: 'merchant-kit',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    keepAlive: true,
    // A transaction never waits on anything but the database: one left idle this long belongs to a
    // process that hung or lost its network, and the server ends it (releasing its locks, the feed's
    // counter among them) instead of keeping every other writer waiting.
    idle_in_transaction_session_timeout: 60_000,
    options: GENERIC_PLANS,
  };
}

/**
 * Every statement is prepared once per connection under its name (conn.ts). Left to choose
 * (`plan_cache_mode = auto`), the server may plan a parameterised statement again on each execution
 * when a custom plan looks cheaper, and for the one-statement admission that was a large part of
 * PostgreSQL's own CPU per request (bench/README.md). The emulator's statements look rows up by key,
 * where a generic plan is as good as a custom one. Sent at start-up (no round trip); a URL that names
 * its own `options` keeps them instead (node-postgres takes the URL's).
 */
const GENERIC_PLANS = '-c plan_cache_mode=force_generic_plan';

/**
 * The pool: a connection that breaks is dropped and the next operation opens a new one, so the
 * adapter carries on by itself once the server is back. An idle connection's error (the server
 * restarting) is expected and must not end the process.
 */
export function createPool(url: string, options: ConnectOptions = {}): Pool {
  // Each connection counts what it sends (round-trips.ts; issue 25: the benchmark prints it).
  // Pipeline mode: a statement queued behind others goes out at once instead of after their answers,
  // so a transaction's BEGIN travels with its first statement and the writes it does not wait for
  // with the next one (issue 25; a failed one still fails the transaction: PostgreSQL aborts it).
  const pool = new SessionRetryingPool({
    ...clientConfig(url, options),
    Client: BatchingClient,
    max: options.poolSize ?? POOL_SIZE,
    idleTimeoutMillis: 30_000,
    maxWaiting: options.maxWaiting ?? MAX_WAITING,
    pipeline: true,
  } as ConstructorParameters<typeof Pool>[0]);
  pool.on('error', () => undefined);
  return pool;
}

/**
 * A pool connection whose statements queued in one turn of the event loop leave in one socket write
 * (issue 25). node-postgres writes each statement as it is queued (pipeline mode), one `writev` each,
 * and under the mix socket writes (`writev`) were 40 % of a PostgreSQL process's busy time: a transaction's BEGIN
 * and its first statement, or its writes sent without waiting and the feed's lock behind them, are
 * queued one after another in one turn. The socket is held (corked) from the turn's first statement
 * to the end of the turn's I/O callbacks (`setImmediate`: the event loop does not wait for I/O while
 * one is pending), then everything held goes in one write, in order.
 */
class BatchingClient extends CountingClient {
  private holding = false;

  override query(...args: unknown[]): never {
    const self = this as unknown as { _connected?: boolean; connection?: { stream?: NodeJS.WritableStream & { cork(): void; uncork(): void; destroyed?: boolean } } };
    const stream = self.connection?.stream;
    if (!this.holding && self._connected && stream && !stream.destroyed) {
      this.holding = true;
      stream.cork();
      setImmediate(() => {
        this.holding = false;
        stream.uncork();
      });
    }
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

/**
 * How many connections a statement tries when each one's session turns out to have been ended while
 * it was idle in the pool (`sessionGone`): every idle connection of a restarted server can be one.
 */
export const staleTries = (pool: Pool): number => pool.options.max + 1;

/**
 * A pool whose statements (each one committed on its own) run again on another connection when the
 * one they were handed had been ended while idle: the server's restart costs the statement nothing,
 * where otherwise every idle connection would fail one request before the pool learnt of it. A
 * prepared statement that PostgreSQL rolled back for another transaction's sake (a deadlock, a
 * serialization failure: nothing of it stays) runs again too, after a short pause, up to
 * CONTENTION_RUNS runs, then fails as a busy database (503), never a 500. Texts of several statements
 * are not run again: one of them may have committed before another failed.
 */
class SessionRetryingPool extends Pool {
  override query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const run = () => super.query<R>(config, values);
    const prepared = typeof config === 'object' && config !== null && typeof config.name === 'string';
    return run().catch((error: unknown) => this.again(run, error, prepared)) as Promise<pg.QueryResult<R>>;
  }

  private async again(run: () => Promise<unknown>, error: unknown, prepared: boolean): Promise<unknown> {
    let stale = 1;
    let runs = 1;
    for (;;) {
      if (sessionGone(error) && stale < staleTries(this)) stale++;
      else if (prepared && isContention(error) && runs < CONTENTION_RUNS) await contentionPause(runs++);
      else throw prepared ? contended(error) : error;
      try {
        return await run();
      } catch (next) {
        error = next;
      }
    }
  }
}

/**
 * A pooled connection for a unit of work. A connection that breaks while checked out (the server
 * restarting between two statements of a transaction) emits an error that nobody awaits: the pool
 * listens to it (pool.ts), the next statement fails as unavailable, and the process goes on.
 */
export function checkout(pool: Pool): Promise<pg.PoolClient> {
  return pool.connect();
}

/** `checkout` for a request's work: a server that cannot be reached is the storage's unavailability (503). */
export function checkoutOrUnavailable(pool: Pool): Promise<pg.PoolClient> {
  return checkout(pool).catch((error) => {
    throw translate(error);
  });
}

export function createClient(url: string, options: ConnectOptions = {}): pg.Client {
  return new pg.Client(clientConfig(url, options));
}

/** The oldest server this adapter runs on (DESIGN: PostgreSQL 14 or newer). */
export const MIN_SERVER_VERSION = 140000;

/** Why the server cannot be used, or null: too old, or not UTF-8 (texts are stored byte for byte). */
export function serverProblem(versionNum: number, encoding: string): string | null {
  if (versionNum < MIN_SERVER_VERSION) {
    const major = Math.floor(versionNum / 10000);
    return `PostgreSQL ${major} is too old: merchant-kit needs PostgreSQL 14 or newer`;
  }
  if (encoding.toUpperCase() !== 'UTF8') return `the database's encoding is ${encoding}: merchant-kit needs a UTF8 database`;
  return null;
}

/** One line for a database that cannot be opened, naming it without its password (no stack). */
export function openError(url: string, error: unknown): Error {
  const out = new Error(`cannot open the PostgreSQL database ${displayUrl(url)}: ${reasonOf(error)}`);
  out.name = 'StorageOpenError';
  out.stack = `${out.name}: ${out.message}`;
  return out;
}
