import type { Environment } from '../../../../src/contract/store.js';
import type { WebhookChaos } from '../../../../src/contract/webhooks.js';
import type { ControlFault } from '../../../../src/contract/control.js';
import { Faults, type FaultView } from '../../../faults.js';
import { NO_CHAOS, type BatchGate, type ChaosStore, type FaultStore } from '../../../store/coordination.js';

// The sandbox tools' state of one process: faults, chaos, the one-batch rule.

export class LocalFaults implements FaultStore {
  private readonly faults = new Faults();

  async add(spec: ControlFault): Promise<FaultView> {
    return this.faults.add(spec);
  }

  async list(): Promise<FaultView[]> {
    return this.faults.active;
  }

  async clear(): Promise<number> {
    return this.faults.clear();
  }

  take(method: string, path: string): FaultView | undefined {
    return this.faults.take(method, path);
  }
}

export class LocalChaos implements ChaosStore {
  private now: WebhookChaos = NO_CHAOS;

  get(): WebhookChaos {
    return this.now;
  }

  current(): WebhookChaos {
    return this.now;
  }

  async set(chaos: WebhookChaos | null): Promise<void> {
    this.now = chaos ?? NO_CHAOS;
  }
}

/** spec: Limits — one batch at a time per integration (ids are unique per environment). */
export class LocalBatchGate implements BatchGate {
  private readonly running = new Set<string>();

  async acquire(env: Environment, integrationId: string): Promise<boolean> {
    const key = `${env}|${integrationId}`;
    if (this.running.has(key)) return false;
    this.running.add(key);
    return true;
  }

  async release(env: Environment, integrationId: string): Promise<void> {
    this.running.delete(`${env}|${integrationId}`);
  }
}
