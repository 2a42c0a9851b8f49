import { webhookChaos, type WebhookChaos } from '../../../src/contract/webhooks.js';
import { NO_CHAOS, type ChaosStore, type ClockState, type ClockStore, type SharedState } from '../../store/coordination.js';
import { statement, tableIn, type Conn } from './conn.js';
import type { SchemaNames } from './schema.js';

/**
 * The sandbox's one shared row (clock, reset generation, chaos) and what this process last read of
 * it. Every request starts with `read()` (the port's sharedState): besides the clock and generation
 * it tells whether any fault or armed fault exists, so the calls every request makes (a fault
 * lookup, an armed fault) answer at once, with no round trip, while none exists — which is nearly
 * always. A change on another process empties what was read (its notice, changes.ts).
 */
export class SharedRow {
  /** Whether faults / armed faults exist; null: not known, ask the database. */
  faults: boolean | null = null;
  armed: boolean | null = null;
  chaos: WebhookChaos | null = null;
  private readonly statements;

  constructor(private readonly conn: Conn, names: SchemaNames) {
    const t = tableIn(names.shared);
    this.statements = {
      read: statement(
        `SELECT generation, clock_mode AS "clockMode", clock_offset_ms AS "clockOffsetMs", clock_frozen_at AS "clockFrozenAt", chaos,
           EXISTS (SELECT 1 FROM ${t('faults')}) AS faults, EXISTS (SELECT 1 FROM ${t('armed_faults')}) AS armed
         FROM ${t('sandbox_state')}`,
      ),
      clock: statement(`SELECT clock_mode AS "clockMode", clock_offset_ms AS "clockOffsetMs", clock_frozen_at AS "clockFrozenAt" FROM ${t('sandbox_state')}`),
      saveClock: statement(`UPDATE ${t('sandbox_state')} SET clock_mode = $1, clock_offset_ms = $2, clock_frozen_at = $3`),
      chaos: statement(`SELECT chaos FROM ${t('sandbox_state')}`),
      saveChaos: statement(`UPDATE ${t('sandbox_state')} SET chaos = $1`),
    };
  }

  private chaosText: string | null = null;
  private chaosValue: WebhookChaos = NO_CHAOS;

  /** The stored chaos, parsed again only when its text changed (it is read on every request). */
  private parseChaos(text: string | null): WebhookChaos {
    if (text !== this.chaosText) {
      this.chaosValue = text === null ? NO_CHAOS : webhookChaos.parse(JSON.parse(text));
      this.chaosText = text;
    }
    return this.chaosValue;
  }

  forget(): void {
    this.faults = null;
    this.armed = null;
    this.chaos = null;
  }

  async read(): Promise<SharedState> {
    const [row] = await this.conn.rows<SharedRowValues>(this.statements.read);
    return this.adopt(row!);
  }

  /** What a read of the row (this one's, or an admission's) tells: kept here, and the shared state. */
  adopt(row: SharedRowValues): SharedState {
    this.faults = row.faults;
    this.armed = row.armed;
    this.chaos = this.parseChaos(row.chaos);
    return { clock: clockOf(row), generation: row.generation };
  }

  clockStore(onSave: () => void): ClockStore {
    return {
      load: async () => clockOf((await this.conn.rows<ClockRow>(this.statements.clock))[0]!),
      save: async (state: ClockState) => {
        await this.conn.run(this.statements.saveClock, [state.mode, state.offsetMs, state.frozenAt]);
        onSave();
      },
    };
  }

  chaosStore(onSave: () => void): ChaosStore {
    return {
      get: () => this.chaos ?? this.loadChaos(),
      // The last setting read or written (a change's notice forgets `chaos`, not that).
      current: () => this.chaosValue,
      set: async (chaos) => {
        const text = chaos ? JSON.stringify(chaos) : null;
        await this.conn.run(this.statements.saveChaos, [text]);
        this.chaos = this.parseChaos(text);
        onSave();
      },
    };
  }

  private async loadChaos(): Promise<WebhookChaos> {
    const [row] = await this.conn.rows<{ chaos: string | null }>(this.statements.chaos);
    return (this.chaos = this.parseChaos(row!.chaos));
  }
}

interface ClockRow {
  clockMode: ClockState['mode'] | null;
  clockOffsetMs: number | null;
  clockFrozenAt: number | null;
}

/** The shared row's columns as `read` (and the admission) select them. */
export interface SharedRowValues extends ClockRow {
  generation: number;
  chaos: string | null;
  faults: boolean;
  armed: boolean;
}



const clockOf = (r: ClockRow): ClockState | null =>
  r.clockMode === null ? null : { mode: r.clockMode, offsetMs: r.clockOffsetMs ?? 0, frozenAt: r.clockFrozenAt ?? Date.now() };
