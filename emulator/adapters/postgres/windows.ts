import { fixedWindow } from '../../clock.js';
import { WINDOW_LIMITS, type RateWindows, type WindowHit, type WindowKind } from '../../store/coordination.js';
import { escapeLiteral, statement, tableIn, type Conn } from './conn.js';
import type { SchemaNames } from './schema.js';

/** A hit on a window row `w` of `rate_windows`: a newer window starts again at one (the admission counts with it too). */
export const HIT_ON_CONFLICT = `ON CONFLICT (kind, key) DO UPDATE SET
       count = CASE WHEN excluded.window_start > w.window_start THEN 1 ELSE w.count + 1 END,
       window_start = GREATEST(w.window_start, excluded.window_start)`;

/**
 * spec: Limits — one budget per key for the whole sandbox: a hit is one upsert that answers the
 * key's count in the window holding `now` (a newer window starts again at one; a hit of a process
 * whose clock lags counts in the current window). The row lock orders concurrent hits.
 */
export function pgWindows(conn: Conn, names: SchemaNames): RateWindows {
  const t = tableIn(names.shared);
  // A request's hit counts the processes' tallies too (limits off on them: RequestTally), as the admission's does.
  const hit = statement(
    `INSERT INTO ${t('rate_windows')} AS w (kind, key, window_start, count) VALUES ($1, $2, $3, 1)
     ${HIT_ON_CONFLICT}
     RETURNING count + CASE WHEN w.kind = 'requests' THEN ${othersTallied(t, 'w.key', 'w.window_start', null)} ELSE 0 END AS count`,
  );
  const count = statement(`SELECT count FROM ${t('rate_windows')} WHERE kind = $1 AND key = $2 AND window_start = $3`);
  return {
    async hit(kind, key, now): Promise<WindowHit> {
      const { start, retryAfterSeconds } = fixedWindow(now);
      const [row] = await conn.rows<{ count: number }>(hit, [kind, key, start]);
      const limit = WINDOW_LIMITS[kind];
      return { allowed: row!.count <= limit, remaining: Math.max(0, limit - row!.count), retryAfterSeconds };
    },
    async exhausted(kind, key, now) {
      const [row] = await conn.rows<{ count: number }>(count, [kind, key, fixedWindow(now).start]);
      return (row?.count ?? 0) >= WINDOW_LIMITS[kind];
    },
    limit: (kind: WindowKind) => WINDOW_LIMITS[kind],
  };
}

/**
 * The window kind of a process's own tally of requests (`RequestTally`), keyed `<integration id> <process id>`:
 * the rows of one integration are one range of the primary key (`othersTallied`).
 */
export const TALLY_KIND = 'requests_tally';

/** The tally rows of integration `id` (an SQL expression) whose window is `windowStart`, but the one `ownKey` names (null: none left out). */
export const othersTallied = (t: (table: string) => string, id: string, windowStart: string, ownKey: string | null) =>
  `COALESCE((SELECT sum(tw.count) FROM ${t('rate_windows')} tw WHERE tw.kind = '${TALLY_KIND}' AND tw.key > ${id} || ' ' AND tw.key < ${id} || '!'
     ${ownKey === null ? '' : `AND tw.key <> ${id} || ${ownKey}`} AND tw.window_start = ${windowStart}), 0)::bigint`;

/** How long a tallied request waits before this process writes its tally (with every other one then). */
const TALLY_WRITE_AFTER_MS = 250;

/**
 * A process's count of the requests it admitted with the limits off (issue 25), per integration and
 * window. With the limits on, every request is one upsert of the integration's shared row: the
 * row's lock orders the hits of every process, so the 121st is refused wherever it lands. With the
 * limits off nothing is refused and the count only feeds `X-RateLimit-Remaining`, so a request
 * writes nothing: the process counts its own requests here and writes its total for the window to a
 * row of its own a moment later (`TALLY_WRITE_AFTER_MS`, one statement for every integration it
 * served). An admission adds the integration's shared row and the other processes' tallies, as of its
 * statement, to this process's own count: a client on one process sees its exact count, and the
 * others' requests show within a moment. A process that dies loses its last unwritten moment of
 * counts, which refuse nothing.
 */
export class RequestTally {
  private readonly counts = new Map<string, { windowStart: number; generation: number; count: number }>();
  private readonly unwritten = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly write;
  /** The SQL text that ends an integration's key with this process's (`<id> <process>`). */
  readonly ownKeySuffix: string;

  constructor(private readonly conn: Conn, names: SchemaNames, private readonly processId: string) {
    const t = tableIn(names.shared);
    this.ownKeySuffix = escapeLiteral(` ${processId}`);
    // Sets the process's total (a write that is repeated sets the same); a window older than the row's
    // is left alone. Rows of ended windows (of processes gone too) are removed on the way.
    this.write = statement(
      `WITH gone AS (DELETE FROM ${t('rate_windows')} WHERE kind = '${TALLY_KIND}' AND window_start < $3::bigint AND NOT (key = ANY($1::text[])))
       INSERT INTO ${t('rate_windows')} AS w (kind, key, window_start, count)
       SELECT '${TALLY_KIND}', u.key, u.window_start, u.count FROM unnest($1::text[], $2::bigint[], $4::bigint[]) AS u(key, window_start, count)
       ON CONFLICT (kind, key) DO UPDATE SET count = excluded.count, window_start = excluded.window_start WHERE excluded.window_start >= w.window_start`,
    );
  }

  /** Counts one request of `integrationId` in the window `windowStart` (sandbox generation `generation`): this process's count there, with it. */
  add(integrationId: string, windowStart: number, generation: number): number {
    const entry = this.counts.get(integrationId);
    if (entry && entry.generation === generation && entry.windowStart > windowStart) return 1; // a lagging clock's window: long gone
    if (!entry || entry.generation !== generation || entry.windowStart < windowStart) {
      if (this.counts.size >= MAX_TALLIED) this.counts.clear();
      this.counts.set(integrationId, { windowStart, generation, count: 1 });
    } else entry.count++;
    this.unwritten.add(integrationId);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), TALLY_WRITE_AFTER_MS);
      this.timer.unref();
    }
    return this.counts.get(integrationId)!.count;
  }

  /** Writes every count not written yet (one write at a time); one that fails is written with the next. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing = this.writing.then(async () => {
      const ids = [...this.unwritten].filter((id) => this.counts.has(id));
      this.unwritten.clear();
      if (!ids.length) return;
      const entries = ids.map((id) => this.counts.get(id)!);
      try {
        await this.conn.run(this.write, [
          ids.map((id) => `${id} ${this.processId}`), entries.map((e) => e.windowStart),
          Math.max(...entries.map((e) => e.windowStart)) - 60_000, entries.map((e) => e.count),
        ]);
      } catch {
        for (const id of ids) this.unwritten.add(id);
      }
    });
    return this.writing;
  }

  /** Forgets the counts (a reset of the sandbox: its windows start again). */
  clear(): void {
    this.counts.clear();
    this.unwritten.clear();
  }
}

/** Integrations tallied at most (past it, the counts start again: a bound, not a case that happens). */
const MAX_TALLIED = 10_000;
