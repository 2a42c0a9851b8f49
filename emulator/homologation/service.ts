import type { Emulator } from '../emulator.js';
import { CallRecorder } from './recorder.js';
import type { InjectedFault } from '../../checks/observation.js';
import type { ObserverSession } from './session.js';
import { closeAgents, createAgents } from '../webhooks/sender.js';

/** The observer's state in one emulator: the call recorder, the sessions, the faults still armed. */
export class HomologationService {
  readonly recorder = new CallRecorder();
  readonly sessions = new Map<string, ObserverSession>();
  /** The probes' own keep-alive agents (the same sender as the dispatcher's deliveries). */
  readonly agents = createAgents(8);
  /** Per integration: faults waiting for its next idempotent write, in order. */
  private readonly armed = new Map<string, InjectedFault[]>();

  constructor(readonly emulator: Emulator) {
    // DESIGN: reset also resets homologation (recorded calls, sessions, armed faults).
    emulator.onReset(() => this.clear());
    emulator.onClose(() => {
      this.clear();
      closeAgents(this.agents);
    });
  }

  clear(): void {
    for (const session of this.sessions.values()) session.stop();
    this.sessions.clear();
    this.armed.clear();
    this.recorder.clear();
  }

  arm(integrationId: string, faults: InjectedFault[]): void {
    this.armed.set(integrationId, [...faults]);
  }

  /** The next armed fault of the integration, taken (one use each), while its session still watches. */
  takeFault(integrationId: string): InjectedFault | undefined {
    const list = this.armed.get(integrationId);
    if (!list || list.length === 0) return undefined;
    const session = this.sessions.get(integrationId);
    // After the session's deadline its report is final: a fault then would only break the ERP's real work.
    if (!session || Date.now() >= session.view.deadline) {
      this.armed.delete(integrationId);
      return undefined;
    }
    const fault = list.shift()!;
    if (list.length === 0) this.armed.delete(integrationId);
    return fault;
  }
}

const services = new WeakMap<Emulator, HomologationService>();

export function homologationService(emulator: Emulator): HomologationService {
  let service = services.get(emulator);
  if (!service) services.set(emulator, (service = new HomologationService(emulator)));
  return service;
}
