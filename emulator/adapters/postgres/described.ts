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
  /** The row's maker (`rowMaker`), or null: the driver's own `parseRow` then. */
  parseRow: ((this: unknown, values: unknown[]) => object) | null;
}

/** A field description as the driver keeps it. */
interface Field {
  name: string;
  format?: string;
}

/**
 * Row makers by the connections' type parsers and by statement: every connection of the pool gets the
 * same maker for the same statement's columns. One function per statement, not per connection, is
 * warmed up (and optimised) ten times sooner: under the mix, ten copies of each did little better than
 * the driver's way, and made more garbage.
 */
const makers = new WeakMap<object, Map<string, Description['parseRow']>>();

/**
 * The parsers' source shared by connections: each connection wraps the configured types in overrides of
 * its own (node-postgres's TypeOverrides); without any override its parsers are the configured ones'.
 */
function sharedTypes(overrides: unknown): object | undefined {
  const o = overrides as { _types?: unknown; text?: object; binary?: object } | undefined;
  if (!o || typeof o._types !== 'object' || o._types === null) return undefined;
  if (Object.keys(o.text ?? {}).length > 0 || Object.keys(o.binary ?? {}).length > 0) return undefined;
  return o._types;
}

function sharedRowMaker(overrides: unknown, name: string, fields: readonly (Field & { dataTypeID?: number })[], parsers: readonly unknown[]): Description['parseRow'] {
  const types = sharedTypes(overrides);
  if (!types) return rowMaker(fields, parsers);
  let byStatement = makers.get(types);
  if (!byStatement) makers.set(types, (byStatement = new Map()));
  const key = `${name}\n${fields.map((f) => `${f.name}\t${f.dataTypeID}\t${f.format}`).join('\n')}`;
  let maker = byStatement.get(key);
  if (maker === undefined) byStatement.set(key, (maker = rowMaker(fields, parsers)));
  return maker;
}

/**
 * A function that makes a row of this description from its values as one object literal (issue 25).
 * node-postgres copies an empty row with every column (`{ ...empty }`) and then sets each field by its
 * name, one keyed store at a time: with the admission's dozens of columns that was the driver's
 * largest item per statement left (`parseRow`, 2 % of a process's busy time under the mix). A literal
 * of the same keys in the same order gives the same row (the last of two same-named columns wins, at the
 * first one's place, as there), built in one step with one shape per statement. Names are the server's
 * column names, written as JSON strings; a binary column or a name the literal would read as something
 * else (`__proto__`) keeps the driver's way.
 */
export function rowMaker(fields: readonly Field[], parsers: readonly unknown[]): Description['parseRow'] {
  if (fields.some((f) => (f.format !== undefined && f.format !== 'text') || f.name === '__proto__')) return null;
  const entries = fields.map((f, i) => `${JSON.stringify(f.name)}: (v = values[${i}]) === null ? null : p${i}(v)`);
  const names = fields.map((_, i) => `p${i}`);
  const make = new Function(...names, `return function parseRow(values) { let v; return { ${entries.join(', ')} }; };`);
  return make(...parsers) as Description['parseRow'];
}

/** node-postgres's Query as this file uses it (its own fields and steps, not in its types). */
interface QueryInternals {
  name?: string;
  values?: unknown[];
  callback?: (error: Error | null, result?: unknown) => void;
  _canceledDueToError: unknown;
  _accumulateRows: boolean;
  _result: { fields: unknown[]; _parsers: unknown[] | undefined; _prebuiltEmptyResultObject: object | null; parseRow: Description['parseRow']; _types?: object };
  prepare(connection: DriverConnection): void;
  handleCommandComplete(message: unknown, connection: DriverConnection): void;
  handleError(error: unknown, connection: DriverConnection): void;
}

interface DriverConnection {
  bind(config: { portal: string; statement: string | undefined; values: unknown[] | undefined; valueMapper: (value: unknown) => unknown }): void;
  execute(config: { portal: string }): void;
  sync(): void;
}

const Query = pg.Query as unknown as new (config: object | string, values?: unknown, callback?: unknown) => QueryInternals;

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

  /**
   * The query of a config of a name, a text and values only, built from its text (issue 25):
   * node-postgres copies a config object whole (`Object.getOwnPropertyDescriptors`, then
   * `defineProperties`: 1.5 % of a process's busy time under the mix), a text not at all. The name is
   * set after, as the copy would have (the values as given, or the config's).
   */
  static of(config: { name: string; text: string; values?: unknown[] }, values: unknown, callback: unknown): DescribedQuery {
    const given = typeof values === 'function' || values === undefined ? config.values : values;
    const query = new DescribedQuery(config.text, given, typeof values === 'function' ? values : callback);
    query.name = config.name;
    return query;
  }

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
    if (known.parseRow) result.parseRow = known.parseRow;
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
      const parsers = result._parsers ?? [];
      const parseRow = sharedRowMaker(result._types, this.name, result.fields as Field[], parsers);
      this.describing.set(this.name, { fields: result.fields, parsers, empty: result._prebuiltEmptyResultObject ?? {}, parseRow });
      this.describing = null;
    }
    super.handleCommandComplete(message, connection);
  }
}

interface QueryConfig {
  name?: unknown;
  submit?: unknown;
  text?: unknown;
  values?: unknown;
  [other: string]: unknown;
}

/** A config of a name, a text and values only (every repository's statement, conn.ts): see `DescribedQuery.of`. */
const plain = (c: QueryConfig): c is { name: string; text: string; values?: unknown[] } =>
  typeof c.text === 'string' && c.types === undefined && c.rowMode === undefined && c.binary === undefined && c.rows === undefined &&
  c.queryMode === undefined && c.portal === undefined && c.callback === undefined;

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
    const query = plain(config) ? DescribedQuery.of(config, values, callback) : new DescribedQuery(config, values, callback);
    if (query.callback) return (super.query as (q: unknown) => never)(query);
    return new Promise((resolve, reject) => {
      query.callback = (error, result) => (error ? reject(error) : resolve(result));
      (super.query as (q: unknown) => unknown)(query);
    }) as never;
  }
}
