import type { Statement } from 'better-sqlite3';
import type { Db } from './open.js';

/**
 * A statement that SQLite prepares on its first use instead of when its repository is made. Each
 * environment's repositories hold about a hundred statements and most starts use a handful: the tests
 * start hundreds of emulators (bench/emulator-start.mjs). Once prepared it is the same statement
 * object a start made before; a statement with a mistake in its SQL now fails on its first call
 * (every statement has tests that call it).
 *
 * Only what the adapter calls is forwarded: run, get, all, iterate, columns, and the modes set when
 * the statement is declared (pluck, raw, expand), which it applies once prepared.
 */
class LazyStatement {
  private statement: Statement | undefined;
  private modes: ((statement: Statement) => void)[] | undefined;

  constructor(
    private readonly db: Db,
    private readonly sql: string,
  ) {}

  private prepared(): Statement {
    if (this.statement === undefined) {
      const statement = this.db.prepare(this.sql);
      for (const mode of this.modes ?? []) mode(statement);
      this.statement = statement;
      this.modes = undefined;
    }
    return this.statement;
  }

  private mode(apply: (statement: Statement) => void): this {
    if (this.statement === undefined) (this.modes ??= []).push(apply);
    else apply(this.statement);
    return this;
  }

  run(...params: unknown[]) {
    return this.prepared().run(...params);
  }

  get(...params: unknown[]) {
    return this.prepared().get(...params);
  }

  all(...params: unknown[]) {
    return this.prepared().all(...params);
  }

  iterate(...params: unknown[]) {
    return this.prepared().iterate(...params);
  }

  columns() {
    return this.prepared().columns();
  }

  pluck(on?: boolean): this {
    return this.mode((s) => (on === undefined ? s.pluck() : s.pluck(on)));
  }

  raw(on?: boolean): this {
    return this.mode((s) => (on === undefined ? s.raw() : s.raw(on)));
  }

  expand(on?: boolean): this {
    return this.mode((s) => (on === undefined ? s.expand() : s.expand(on)));
  }
}

/** `db.prepare(sql)`, prepared on first use (see LazyStatement); typed as the statement it becomes. */
export function prepareLazily<P extends unknown[] | {} = unknown[], R = unknown>(
  db: Db,
  sql: string,
): P extends unknown[] ? Statement<P, R> : Statement<[P], R> {
  return new LazyStatement(db, sql) as unknown as P extends unknown[] ? Statement<P, R> : Statement<[P], R>;
}
