import type { InjectedFault, RecordedCall, SessionView } from '../../../src/contract/observation.js';
import { RING_SIZE, type HomologationStore } from '../../store/coordination.js';
import type { MaybePromise } from '../../store/maybe.js';
import { statement, tableIn, type Conn } from './conn.js';
import type { SchemaNames } from './schema.js';
import type { SharedRow } from './sandbox.js';

/** A batch of recordings is written this long after its first call, or at once when it is this big. */
const FLUSH_AFTER_MS = 20;
const FLUSH_AT = 200;
/** Recordings kept while the database cannot be reached, at most (then the oldest go). */
const MAX_PENDING = 10_000;

/**
 * The observer's recordings, sessions and armed faults in the shared schema. Recording is on the
 * path of every API call of an integration, so it costs no round trip there: calls are gathered and
 * written together a few milliseconds later (one INSERT for many), and `record` answers a promise
 * that settles once its call is written and has its `seq` (never rejected: a recording that cannot
 * be written is kept for the next try). `calls` writes what this process still holds first. Each
 * integration keeps its last RING_SIZE calls, as in one process.
 */
export class PgHomologation implements HomologationStore {
  private pending: { integrationId: string; call: RecordedCall; written: () => void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly trimmed = new Map<string, number>();
  private readonly s;

  constructor(
    private readonly conn: Conn,
    names: SchemaNames,
    private readonly shared: SharedRow,
    private readonly changed: () => void,
  ) {
    const t = tableIn(names.shared);
    this.s = {
      insert: statement(
        `INSERT INTO ${t('homologation_calls')} (integration_id, call)
         SELECT integration_id, call FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS c(integration_id, call, n) ORDER BY n
         RETURNING seq`,
      ),
      calls: statement(`SELECT seq, call FROM ${t('homologation_calls')} WHERE integration_id = $1 ORDER BY seq DESC LIMIT ${RING_SIZE}`),
      trim: statement(
        `DELETE FROM ${t('homologation_calls')} WHERE integration_id = $1 AND seq <= (
           SELECT seq FROM ${t('homologation_calls')} WHERE integration_id = $1 ORDER BY seq DESC OFFSET ${RING_SIZE} LIMIT 1)`,
      ),
      saveSession: statement(
        `INSERT INTO ${t('homologation_sessions')} (integration_id, view) VALUES ($1, $2)
         ON CONFLICT (integration_id) DO UPDATE SET view = excluded.view`,
      ),
      session: statement(`SELECT view FROM ${t('homologation_sessions')} WHERE integration_id = $1`),
      arm: statement(
        `WITH gone AS (DELETE FROM ${t('armed_faults')} WHERE integration_id = $1)
         INSERT INTO ${t('armed_faults')} (integration_id, fault)
         SELECT $1, fault FROM unnest($2::text[]) WITH ORDINALITY AS f(fault, n) ORDER BY n`,
      ),
      takeArmed: statement(
        `DELETE FROM ${t('armed_faults')} WHERE id = (
           SELECT id FROM ${t('armed_faults')} WHERE integration_id = $1 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING fault`,
      ),
      disarm: statement(`DELETE FROM ${t('armed_faults')} WHERE integration_id = $1`),
    };
  }

  record(integrationId: string, call: RecordedCall): MaybePromise<void> {
    return new Promise<void>((written) => {
      if (this.pending.length >= MAX_PENDING) this.pending.shift()!.written();
      this.pending.push({ integrationId, call, written });
      if (this.pending.length >= FLUSH_AT) void this.flush();
      else if (!this.timer) {
        this.timer = setTimeout(() => void this.flush(), FLUSH_AFTER_MS);
        this.timer.unref();
      }
    });
  }

  /** Writes every call gathered so far (one at a time: batches keep their order). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let rows: { seq: number }[];
    try {
      rows = await this.conn.rows<{ seq: number }>(this.s.insert, [batch.map((b) => b.integrationId), batch.map((b) => JSON.stringify({ ...b.call, seq: 0 }))]);
    } catch {
      // Kept for the next flush (the database may be back by then).
      this.pending = [...batch, ...this.pending].slice(-MAX_PENDING);
      if (!this.timer) {
        this.timer = setTimeout(() => void this.flush(), 1000);
        this.timer.unref();
      }
      return;
    }
    batch.forEach((b, i) => {
      b.call.seq = rows[i]!.seq;
      b.written();
    });
    // Written: a trim that fails is tried again a few hundred calls later.
    await this.trim(batch.map((b) => b.integrationId)).catch(() => undefined);
  }

  /** An integration's oldest calls beyond the ring's size go, checked once every few hundred calls. */
  private async trim(integrationIds: string[]): Promise<void> {
    for (const id of new Set(integrationIds)) {
      const n = (this.trimmed.get(id) ?? 0) + integrationIds.filter((x) => x === id).length;
      if (n < 500) {
        this.trimmed.set(id, n);
        continue;
      }
      this.trimmed.set(id, 0);
      await this.conn.run(this.s.trim, [id]);
    }
  }

  async calls(integrationId: string): Promise<RecordedCall[]> {
    await this.flush();
    const rows = await this.conn.rows<{ seq: number; call: string }>(this.s.calls, [integrationId]);
    return rows.reverse().map((r) => ({ ...(JSON.parse(r.call) as RecordedCall), seq: r.seq }));
  }

  async saveSession(integrationId: string, view: SessionView): Promise<void> {
    await this.conn.run(this.s.saveSession, [integrationId, JSON.stringify(view)]);
  }

  async session(integrationId: string): Promise<SessionView | null> {
    const [row] = await this.conn.rows<{ view: string }>(this.s.session, [integrationId]);
    return row ? (JSON.parse(row.view) as SessionView) : null;
  }

  async arm(integrationId: string, faults: InjectedFault[]): Promise<void> {
    await this.conn.run(this.s.arm, [integrationId, faults.map((f) => JSON.stringify(f))]);
    if (faults.length > 0) this.shared.armed = true;
    this.changed();
  }

  takeArmed(integrationId: string): MaybePromise<InjectedFault | undefined> {
    if (this.shared.armed === false) return undefined;
    return this.conn.rows<{ fault: string }>(this.s.takeArmed, [integrationId]).then(([row]) => (row ? (JSON.parse(row.fault) as InjectedFault) : undefined));
  }

  async disarm(integrationId: string): Promise<void> {
    await this.conn.run(this.s.disarm, [integrationId]);
    this.changed();
  }

  /** What this process holds goes (the sandbox was reset). */
  clear(): void {
    const pending = this.pending;
    this.pending = [];
    for (const p of pending) p.written();
    this.trimmed.clear();
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
