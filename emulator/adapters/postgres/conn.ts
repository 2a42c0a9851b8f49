import type { Change, Topic } from '../../store/changes.js';
import { translate } from './errors.js';
import { quote } from './schema.js';

/**
 * One SQL text, prepared once per connection under its name (node-postgres keeps the prepared
 * statements of each pooled connection): a repository call costs one round trip with no parsing.
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

let named = 0;

export function statement(text: string): Statement {
  return { name: `mk_${++named}`, text };
}

/**
 * A text as an SQL literal, exactly as node-postgres's `escapeLiteral` writes it (quotes doubled; with a
 * backslash, backslashes doubled and the ` E'…'` form, so it reads the same whatever
 * `standard_conforming_strings` is), by two replacements instead of a character-by-character copy: the
 * COMMIT's text carries each event's order and each delivery's body as literals (issue 25).
 */
export function escapeLiteral(text: string): string {
  if (typeof text !== 'string') return "''";
  const quoted = text.includes("'") ? text.replace(/'/g, "''") : text;
  return text.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

/** `table('orders')` → `"merchant_kit_test".orders`: every statement names its schema. */
export const tableIn = (schema: string) => (table: string) => `${quote(schema)}.${table}`;

export interface Queryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
  /** A text of one or more statements without parameters (the simple protocol). */
  query(text: string): Promise<unknown>;
}

/**
 * What a repository runs its statements on: the pool (each call on its own, committed at once) or
 * a transaction's connection. `changed` tells the change feed what a write touched: at once for the
 * pool, at commit for a transaction.
 */
export interface Conn {
  rows<R>(statement: Statement, values?: unknown[]): Promise<R[]>;
  /** Rows written. */
  run(statement: Statement, values?: unknown[]): Promise<number>;
  /**
   * A write whose result nobody reads, queued without waiting (a transaction's connection only: the
   * pool's has none, each of its writes commits on its own).
   */
  send?(statement: Statement, values?: unknown[]): void;
  /** `told`: the statement that wrote it already sent its notice (see `notice`): publish it here only. */
  changed(change: Change, told?: boolean): void;
  /**
   * The pool's only (a write that commits on its own): the notice of `change` as parameters of the
   * writing statement, which then sends it itself (`pg_notify(channel, before || <store id as JSON> ||
   * after)`), one statement less than a notice sent after it. `change.storeId` is a mark the statement
   * replaces with its row's store.
   */
  notice?(change: Change): NoticeParts;
  /**
   * A transaction's connection only: whether the transaction wrote a change of `topic` so far. Its
   * own writes are in its reads but not yet in what triggers set at its COMMIT (the store's catalog
   * version, migration 9): a read kept by that version must not stand for them.
   */
  wrote?(topic: Topic): boolean;
}

/** A change's notice with its store id left out, for a statement to complete (see `Conn.notice`). */
export interface NoticeParts {
  channel: string;
  before: string;
  after: string;
}

export class QueryConn implements Conn {
  readonly notice?: (change: Change) => NoticeParts;

  constructor(
    private readonly db: Queryable,
    private readonly sink: (change: Change, told?: boolean) => void,
    /** Told of every failed statement (a transaction then rolls back, whatever its work does with the error). */
    private readonly onFailure?: (error: unknown) => void,
    notice?: (change: Change) => NoticeParts,
  ) {
    if (notice) this.notice = notice;
  }

  async rows<R>(s: Statement, values: unknown[] = []): Promise<R[]> {
    try {
      return (await this.db.query({ name: s.name, text: s.text, values })).rows as R[];
    } catch (error) {
      this.onFailure?.(error);
      throw translate(error);
    }
  }

  async run(s: Statement, values: unknown[] = []): Promise<number> {
    try {
      return (await this.db.query({ name: s.name, text: s.text, values })).rowCount ?? 0;
    } catch (error) {
      this.onFailure?.(error);
      throw translate(error);
    }
  }

  /** Runs a text of statements without parameters (one round trip for all of them). */
  async text(sql: string): Promise<void> {
    try {
      await this.db.query(sql);
    } catch (error) {
      this.onFailure?.(error);
      throw translate(error);
    }
  }

  changed(change: Change, told?: boolean): void {
    this.sink(change, told);
  }
}

/**
 * A transaction's connection (env-store.ts). Its statements first send what `take` holds back (an
 * emit's writes): a statement of the transaction then sees them, as if written when asked. `send`
 * queues a write whose result nobody reads without waiting for it: the driver sends it once the
 * statements before it are answered, the next statement goes behind it, and a failure fails the
 * transaction (the connection's `onFailure`) at its next statement or its COMMIT.
 */
export class TxConn implements Conn {
  constructor(
    private readonly conn: QueryConn,
    private readonly take: () => string,
    /** The changes the transaction reported so far (what `conn` hands its `changed`). */
    private readonly changes: readonly Change[],
  ) {}

  async rows<R>(s: Statement, values?: unknown[]): Promise<R[]> {
    await this.flush();
    return this.conn.rows<R>(s, values);
  }

  async run(s: Statement, values?: unknown[]): Promise<number> {
    await this.flush();
    return this.conn.run(s, values);
  }

  send(s: Statement, values: unknown[] = []): void {
    const text = this.take();
    if (text) this.conn.text(text).catch(() => undefined);
    // The failure is the transaction's (onFailure); here it is only kept from being unhandled.
    this.conn.run(s, values).catch(() => undefined);
  }

  changed(change: Change): void {
    this.conn.changed(change);
  }

  wrote(topic: Topic): boolean {
    return this.changes.some((change) => change.topic === topic);
  }

  private flush(): Promise<void> | undefined {
    const text = this.take();
    return text ? this.conn.text(text) : undefined;
  }
}
