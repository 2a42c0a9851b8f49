import pg from 'pg';
import utils from 'pg/lib/utils.js';

/**
 * What a named statement answers on one connection: its columns (the driver's field descriptions),
 * a parser per column and the empty row its rows are copied from (as node-postgres builds them).
 */
interface Description {
  fields: unknown[];
  parsers: unknown[];
  empty: object;
}

/** node-postgres's Query as this file uses it (its own fields and steps, not in its types). */
interface QueryInternals {
  name?: string;
  values?: unknown[];
  callback?: (error: Error | null, result?: unknown) => void;
  _canceledDueToError: unknown;
  _accumulateRows: boolean;
  _result: { fields: unknown[]; _parsers: unknown[] | undefined; _prebuiltEmptyResultObject: object | null };
  prepare(connection: DriverConnection): void;
  handleCommandComplete(message: unknown, connection: DriverConnection): void;
  handleError(error: unknown, connection: DriverConnection): void;
}

interface DriverConnection {
  bind(config: { portal: string; statement: string | undefined; values: unknown[] | undefined; valueMapper: (value: unknown) => unknown }): void;
  execute(config: { portal: string }): void;
  sync(): void;
}

const Query = pg.Query as unknown as new (config: object, values?: unknown, callback?: unknown) => QueryInternals;

/**
 * The driver internals this file relies on (node-postgres 8.23: package.json pins its minor). Another
 * version whose Query lacks them runs every statement as node-postgres does, described each time.
 */
export function driverFits(): boolean {
  const probe = new Query({ text: 'SELECT 1', name: 'probe' }) as Partial<QueryInternals>;
  const proto = Query.prototype as Partial<QueryInternals>;
  const result = probe._result as Partial<QueryInternals['_result']> | undefined;
  return (
    typeof proto.prepare === 'function' &&
    typeof proto.handleCommandComplete === 'function' &&
    typeof proto.handleError === 'function' &&
    typeof utils?.prepareValue === 'function' &&
    result !== undefined &&
    'fields' in result &&
    '_parsers' in result &&
    '_prebuiltEmptyResultObject' in result &&
    '_canceledDueToError' in probe
  );
}
const DRIVER_FITS = driverFits();

/** Per connection (the driver's Connection object: a new session is a new one), what each named statement answers. */
const described = new WeakMap<DriverConnection, Map<string, Description>>();

/**
 * A named statement's execution without its description (issue 25). node-postgres asks the server to
 * describe every execution's result (Describe), then parses the column list it gets back and builds
 * a parser per column and an empty row, every time: for the admission's statement (dozens of columns)
 * that was most of the driver's CPU per request. A prepared statement's columns cannot change while
 * it stays prepared (the server refuses to run it once they would: "cached plan must not change result
 * type"), so the first execution on a connection describes them as before and the later ones reuse
 * that: Bind, Execute, Sync, and the rows parsed as the first execution's were.
 */
class DescribedQuery extends Query {
  /** Set on the first execution on a connection: where its description goes once it answered. */
  private describing: Map<string, Description> | null = null;

  override prepare(connection: DriverConnection): void {
    let statements = described.get(connection);
    if (!statements) described.set(connection, (statements = new Map()));
    const known = this.name === undefined ? undefined : statements.get(this.name);
    if (!known) {
      this.describing = statements;
      super.prepare(connection);
      return;
    }
    const result = this._result;
    result.fields = known.fields;
    result._parsers = known.parsers;
    result._prebuiltEmptyResultObject = known.empty;
    // What the row description would have set: the rows are kept for the callback.
    this._accumulateRows = true;
    try {
      connection.bind({ portal: '', statement: this.name, values: this.values, valueMapper: utils.prepareValue });
    } catch (error) {
      // A value the driver cannot send (as node-postgres's own prepare does): the query fails, the connection stays usable.
      connection.sync();
      this.handleError(error, connection);
      return;
    }
    connection.execute({ portal: '' });
    connection.sync();
  }

  override handleCommandComplete(message: unknown, connection: DriverConnection): void {
    // The description (or none: a statement without rows answers NoData) came before the command's end.
    if (this.describing && this.name !== undefined && !this._canceledDueToError) {
      const result = this._result;
      this.describing.set(this.name, { fields: result.fields, parsers: result._parsers ?? [], empty: result._prebuiltEmptyResultObject ?? {} });
      this.describing = null;
    }
    super.handleCommandComplete(message, connection);
  }
}

interface QueryConfig {
  name?: unknown;
  submit?: unknown;
}

/**
 * The adapter's connections: a named statement (every repository's, conn.ts) runs as a DescribedQuery;
 * anything else (texts of statements, BEGIN, COMMIT) as node-postgres runs it.
 */
export class DescribingClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [config, values, callback] = args as [QueryConfig | null | undefined, unknown, unknown];
    if (!DRIVER_FITS || config === null || typeof config !== 'object' || typeof config.name !== 'string' || typeof config.submit === 'function') {
      return (super.query as (...a: unknown[]) => never)(...args);
    }
    const query = new DescribedQuery(config, values, callback);
    if (query.callback) return (super.query as (q: unknown) => never)(query);
    return new Promise((resolve, reject) => {
      query.callback = (error, result) => (error ? reject(error) : resolve(result));
      (super.query as (q: unknown) => unknown)(query);
    }) as never;
  }
}
