import type { EnvContext } from '../context.js';

/** The board's read: the newest `limit` orders of a store, oldest first (numbers are per store). */
export function recentOrderNumbersFrom(env: EnvContext, storeId: string, limit: number): number {
  const row = env.db.prepare<[string], { n: number | null }>('SELECT MAX(number) AS n FROM orders WHERE store_id = ?').get(storeId);
  return Math.max(0, (row?.n ?? 0) - limit);
}
