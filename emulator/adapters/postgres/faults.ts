import type { ControlFault } from '../../../src/contract/control.js';
import { Faults, globMatcher, type FaultView } from '../../faults.js';
import type { FaultStore } from '../../store/coordination.js';
import type { MaybePromise } from '../../store/maybe.js';
import { statement, tableIn, type Conn } from './conn.js';
import type { SchemaNames } from './schema.js';
import type { SharedRow } from './sandbox.js';

/**
 * Injected faults shared by every process: a use taken on one is gone for all. A take finds the
 * first matching fault (globs are matched here, with the emulator's own matcher) and takes one use
 * with one statement that only succeeds while the use is still there (the last use deletes the row);
 * when another process took it first, it looks again.
 */
export function pgFaults(conn: Conn, names: SchemaNames, shared: SharedRow, changed: () => void): FaultStore {
  const t = tableIn(names.shared);
  const VIEW = `method, path, status, code, retry_after, delay_ms, times`;
  const s = {
    insert: statement(
      `INSERT INTO ${t('faults')} (method, path, status, code, retry_after, delay_ms, times) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    ),
    list: statement(`SELECT id, ${VIEW} FROM ${t('faults')} ORDER BY id`),
    clear: statement(`DELETE FROM ${t('faults')}`),
    takeLast: statement(`DELETE FROM ${t('faults')} WHERE id = $1 AND times = 1 RETURNING ${VIEW}`),
    takeOne: statement(`UPDATE ${t('faults')} SET times = times - 1 WHERE id = $1 AND times > 1 RETURNING ${VIEW}`),
  };
  const matchers = new Map<string, (path: string) => boolean>();
  const matcher = (glob: string) => {
    let m = matchers.get(glob);
    if (!m) {
      if (matchers.size > 1000) matchers.clear();
      matchers.set(glob, (m = globMatcher(glob)));
    }
    return m;
  };

  async function take(method: string, path: string): Promise<FaultView | undefined> {
    const upper = method.toUpperCase();
    for (let i = 0; i < 10; i++) {
      const list = await conn.rows<FaultView & { id: number }>(s.list);
      shared.faults = list.length > 0;
      const fault = list.find((f) => (f.method === null || f.method === upper) && matcher(f.path)(path));
      if (!fault) return undefined;
      const [last] = await conn.rows<FaultView>(s.takeLast, [fault.id]);
      const taken = last ? { ...last, times: 0 } : (await conn.rows<FaultView>(s.takeOne, [fault.id]))[0];
      if (taken) {
        if (last) changed();
        return taken;
      }
    }
    return undefined;
  }

  return {
    async add(spec: ControlFault) {
      // The emulator's own defaults (code and Retry-After for the status).
      const view = new Faults().add(spec);
      await conn.run(s.insert, [view.method, view.path, view.status, view.code, view.retry_after, view.delay_ms, view.times]);
      shared.faults = true;
      changed();
      return view;
    },
    async list() {
      return (await conn.rows<FaultView & { id: number }>(s.list)).map(({ id: _id, ...view }) => view);
    },
    async clear() {
      const n = await conn.run(s.clear);
      shared.faults = false;
      changed();
      return n;
    },
    take(method, path): MaybePromise<FaultView | undefined> {
      return shared.faults === false ? undefined : take(method, path);
    },
  };
}
