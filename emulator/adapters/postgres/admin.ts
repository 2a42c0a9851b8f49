import { ENVIRONMENTS, type Environment } from '../../../src/contract/store.js';
import type { Admin } from '../../store/admin.js';
import type { Change } from '../../store/changes.js';
import type { EnvironmentDump } from '../../bundle/format.js';
import { checkoutOrUnavailable, type Pool, type PoolClient } from './connect.js';
import { translate } from './errors.js';
import { MIGRATIONS } from './migrations/index.js';
import { dumpEnvironment } from './dump.js';
import { loadDumps, truncateAll } from './restore.js';
import { quote, type SchemaNames } from './schema.js';
import type { PgChangeFeed } from './changes.js';

/** What a restore may have changed, for every process's caches. */
const restored = (): Change[] =>
  ENVIRONMENTS.flatMap((environment): Change[] => [
    { topic: 'auth', environment },
    { topic: 'catalog', environment, storeId: null },
    { topic: 'webhooks', environment, storeId: null, config: true },
  ]);

/** Bundles and resets on the server database, each one transaction over both environments' schemas. */
export class PgAdmin implements Admin {
  readonly schemaVersion = MIGRATIONS.length;

  constructor(
    private readonly pool: Pool,
    private readonly names: SchemaNames,
    private readonly feed: PgChangeFeed,
    /** This process's own state of the sandbox goes too (claims it held were emptied with the tables). */
    private readonly forget: () => void,
  ) {}

  dump(env: Environment): Promise<EnvironmentDump> {
    return this.withClient((client) => dumpEnvironment(client, this.names, env));
  }

  async restore(dumps: Record<Environment, EnvironmentDump>): Promise<void> {
    await this.withClient((client) => loadDumps(client, this.names, dumps));
    this.forget();
    this.feed.publish(restored());
    await this.feed.notify(this.pool, restored(), true);
  }

  /**
   * Every table of both environments emptied in one transaction (other processes' requests wait on
   * the tables' locks, then see them empty), the generation moved and the reset told to every process.
   */
  async reset(): Promise<void> {
    const reset: Change = { topic: 'reset', environment: null };
    await this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        await client.query(truncateAll(this.names));
        await client.query(`UPDATE ${quote(this.names.shared)}.sandbox_state SET generation = generation + 1`);
        await client.query(`${this.feed.notifyText([reset], true)}COMMIT`);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    this.forget();
    this.feed.publish([reset]);
  }

  private async withClient<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await checkoutOrUnavailable(this.pool);
    try {
      const out = await fn(client);
      client.release();
      return out;
    } catch (error) {
      const out = translate(error);
      client.release(out !== error ? true : undefined);
      throw out;
    }
  }
}
