import type { InjectedFault, RecordedCall, SessionView } from '../../../../src/contract/observation.js';
import { RING_SIZE, type HomologationStore } from '../../../store/coordination.js';

class Ring {
  private readonly items: RecordedCall[] = [];
  private next = 0;

  push(call: RecordedCall): void {
    if (this.items.length < RING_SIZE) this.items.push(call);
    else this.items[this.next] = call;
    this.next = (this.next + 1) % RING_SIZE;
  }

  /** Oldest first. */
  list(): RecordedCall[] {
    if (this.items.length < RING_SIZE) return [...this.items];
    return [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}

/**
 * The observer's recordings and sessions in one process: every API call per integration in an
 * in-memory ring (an object pushed, nothing copied), the sessions' views, the armed faults.
 */
export class LocalHomologation implements HomologationStore {
  private rings = new Map<string, Ring>();
  private seq = 0;
  private readonly sessions = new Map<string, SessionView>();
  private readonly armed = new Map<string, InjectedFault[]>();

  /** Keeps `call` (its `seq` is set here). */
  record(integrationId: string, call: RecordedCall): void {
    let ring = this.rings.get(integrationId);
    if (!ring) this.rings.set(integrationId, (ring = new Ring()));
    call.seq = ++this.seq;
    ring.push(call);
  }

  async calls(integrationId: string): Promise<RecordedCall[]> {
    return this.rings.get(integrationId)?.list() ?? [];
  }

  /** The view is kept as given: its session keeps it up to date in place. */
  async saveSession(integrationId: string, view: SessionView): Promise<void> {
    this.sessions.set(integrationId, view);
  }

  async session(integrationId: string): Promise<SessionView | null> {
    return this.sessions.get(integrationId) ?? null;
  }

  async arm(integrationId: string, faults: InjectedFault[]): Promise<void> {
    this.armed.set(integrationId, [...faults]);
  }

  takeArmed(integrationId: string): InjectedFault | undefined {
    const list = this.armed.get(integrationId);
    if (!list || list.length === 0) return undefined;
    const fault = list.shift()!;
    if (list.length === 0) this.armed.delete(integrationId);
    return fault;
  }

  /** Forgets the armed faults of an integration (its session ended). */
  async disarm(integrationId: string): Promise<void> {
    this.armed.delete(integrationId);
  }

  clear(): void {
    this.rings = new Map();
    this.sessions.clear();
    this.armed.clear();
  }
}
