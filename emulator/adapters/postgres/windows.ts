import { fixedWindow } from '../../clock.js';
import { WINDOW_LIMITS, type RateWindows, type WindowHit, type WindowKind } from '../../store/coordination.js';
import { statement, tableIn, type Conn } from './conn.js';
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
  const hit = statement(
    `INSERT INTO ${t('rate_windows')} AS w (kind, key, window_start, count) VALUES ($1, $2, $3, 1)
     ${HIT_ON_CONFLICT}
     RETURNING count`,
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
