import { randomUUID } from 'node:crypto';
import { ENVIRONMENTS, type Environment } from '../../../src/contract/store.js';
import type { Admissions, StoragePort } from '../../store/port.js';
import type { EmitContext } from '../../store/emit.js';
import { QueryConn } from './conn.js';
import { checkout, createPool, openError, type ConnectOptions, type Pool } from './connect.js';
import { PgChangeFeed } from './changes.js';
import { PgEnvStore } from './env-store.js';
import { pgCoordination } from './coordination.js';
import { PgAdmin } from './admin.js';
import { LeaseKeeper } from './leases.js';
import { pgCertificates } from './certificates.js';
import type { CertificateLedger } from '../../certificates/repository.js';
import { checkServer, migrate, SchemaError } from './migrate.js';
import { schemaNames, type SchemaNames } from './schema.js';
import { roundTrips } from './round-trips.js';
import { pgAdmissions } from './admission.js';
import { RequestTally } from './windows.js';

export { isDriverUnavailable, StorageUnavailableError } from './errors.js';

export interface PostgresOptions extends ConnectOptions {
  /** The sandbox's schemas are `<prefix>_live`, `<prefix>_test` and `<prefix>_shared` (default `merchant_kit`). */
  schemaPrefix?: string;
  /** This process, as the owner of its claims (a random id by default). */
  processId?: string;
  /** The lease of idempotency claims and batch gates, renewed while held (default 30 s). */
  leaseMs?: number;
}

/**
 * The server adapter (DESIGN: Storage and the team sandbox): the sandbox's state in a PostgreSQL
 * database that several emulator processes share. Each environment has its schema, with the tables
 * and columns of the embedded adapter (bundles are the same on both); what the processes coordinate
 * on lives in a shared schema; changes travel by LISTEN/NOTIFY.
 */
export class PostgresStorage implements StoragePort {
  readonly shared = true;
  readonly envs: Record<Environment, PgEnvStore>;
  readonly coordination: ReturnType<typeof pgCoordination>;
  readonly admin: PgAdmin;
  readonly certificates: CertificateLedger;
  readonly admissions: Admissions;
  private readonly leases: LeaseKeeper;
  private readonly tally: RequestTally;

  private constructor(
    private readonly pool: Pool,
    readonly names: SchemaNames,
    readonly changes: PgChangeFeed,
    context: EmitContext,
    options: PostgresOptions,
  ) {
    const conn = new QueryConn(pool as never, () => undefined);
    this.leases = new LeaseKeeper(conn, names, changes.origin, options.leaseMs);
    this.envs = Object.fromEntries(
      ENVIRONMENTS.map((environment) => [environment, new PgEnvStore({ environment, schema: names.env[environment], pool, feed: changes, context })]),
    ) as Record<Environment, PgEnvStore>;
    this.certificates = pgCertificates(conn, pool, names);
    this.coordination = pgCoordination({ conn, pool, names, feed: changes, leases: this.leases });
    this.tally = new RequestTally(conn, names, changes.origin);
    this.admissions = pgAdmissions(conn, names, this.coordination.shared, this.tally);
    this.admin = new PgAdmin(pool, names, changes, () => {
      this.leases.forget();
      this.coordination.homologation.clear();
      this.tally.clear();
    });
  }

  /**
   * Connects, checks the server (PostgreSQL 14 or newer, UTF8), migrates under the advisory lock and
   * starts listening for other processes' changes. A database that cannot be reached or used is one
   * error with one line, naming the database without its password.
   */
  static async open(url: string, context: EmitContext, options: PostgresOptions = {}): Promise<PostgresStorage> {
    const names = schemaNames(options.schemaPrefix);
    const pool = createPool(url, options);
    const feed = new PgChangeFeed(names.channel, options.processId ?? randomUUID());
    try {
      const client = await checkout(pool);
      try {
        await checkServer(client);
        await migrate(client, names);
      } finally {
        client.release();
      }
      await feed.listen(url, options);
    } catch (error) {
      await feed.close();
      await pool.end().catch(() => undefined);
      throw error instanceof SchemaError ? error : openError(url, error);
    }
    const storage = new PostgresStorage(pool, names, feed, context, options);
    storage.countRoundTrips(process.env.MERCHANT_KIT_ROUND_TRIPS);
    return storage;
  }

  private countsWritten: NodeJS.Timeout | null = null;
  private countsFile: string | null = null;

  /**
   * A benchmark's counting run (MERCHANT_KIT_ROUND_TRIPS=FILE): the process's round trips per HTTP
   * route and per background statement, written to FILE every second and at close (bench/mixed.mjs).
   */
  private countRoundTrips(file: string | undefined): void {
    if (!file) return;
    roundTrips.countHttpRequests();
    this.countsFile = file;
    const write = () => {
      try {
        roundTrips.writeTo(file);
      } catch {
        // a counter that cannot be written is the benchmark's loss, never the emulator's
      }
    };
    write();
    this.countsWritten = setInterval(write, 1000);
    this.countsWritten.unref();
  }

  env(name: Environment): PgEnvStore {
    return this.envs[name];
  }

  private closed = false;

  /** Ends the pool and the listening connection; a second call does nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.countsWritten) clearInterval(this.countsWritten);
    if (this.countsFile) {
      try {
        roundTrips.writeTo(this.countsFile);
      } catch {
        // as above
      }
    }
    this.leases.stop();
    await this.tally.flush();
    await this.coordination.homologation.close().catch(() => undefined);
    await this.changes.close();
    await this.pool.end();
  }
}
