import type { Emulator } from '../emulator.js';
import type { InjectedFault } from '../../src/contract/observation.js';
import type { HomologationStore } from '../store/coordination.js';
import type { ObserverSession } from './session.js';
import { closeAgents, createAgents } from '../webhooks/sender.js';

/**
 * The observer in one emulator: the recordings and armed faults in the storage's coordination (a
 * sandbox of several processes shares them), the sessions this process runs, the probes' agents.
 */
export class HomologationService {
  readonly store: HomologationStore;
  readonly sessions = new Map<string, ObserverSession>();
  /** The probes' own keep-alive agents (the same sender as the dispatcher's deliveries). */
  readonly agents = createAgents(8);
  /** BENCH-ONLY switch (POST /_emulator/homologation/recorder) to measure what recording costs. */
  recording = true;

  constructor(readonly emulator: Emulator) {
    this.store = emulator.storage.coordination.homologation;
    // DESIGN: reset also resets homologation (recorded calls, sessions, armed faults); the
    // coordination's reset empties the shared part.
    emulator.onReset(() => this.stopSessions());
    emulator.onClose(() => {
      this.stopSessions();
      closeAgents(this.agents);
    });
  }

  stopSessions(): void {
    for (const session of this.sessions.values()) session.stop();
    this.sessions.clear();
  }

  /**
   * The next armed fault of the integration, taken (one use each), while its session still watches.
   * The session may run on another process of a shared sandbox: its deadline is read where it is kept.
   */
  async takeFault(integrationId: string): Promise<InjectedFault | undefined> {
    const fault = await this.store.takeArmed(integrationId);
    if (!fault) return undefined;
    const view = this.sessions.get(integrationId)?.view ?? (await this.store.session(integrationId));
    // After the session's deadline its report is final: a fault then would only break the ERP's real work.
    if (!view || Date.now() >= view.deadline) {
      await this.store.disarm(integrationId);
      return undefined;
    }
    return fault;
  }
}

const services = new WeakMap<Emulator, HomologationService>();

export function homologationService(emulator: Emulator): HomologationService {
  let service = services.get(emulator);
  if (!service) services.set(emulator, (service = new HomologationService(emulator)));
  return service;
}
