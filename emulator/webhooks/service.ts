import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { Environment } from '../../src/contract/store.js';
import { webhookChaos, type WebhookChaos } from '../../src/contract/webhooks.js';
import { EnvDispatcher, type AttemptTally } from './dispatcher.js';
import { closeAgents, createAgents } from './sender.js';

const NO_CHAOS: WebhookChaos = webhookChaos.parse({});

/** The webhook dispatcher of the whole emulator: one queue per environment, one chaos setting. */
export class WebhookService {
  private chaosSetting: WebhookChaos = NO_CHAOS;
  private readonly agents = createAgents();
  /** Attempts finished since the last drain. */
  private readonly sinceDrain: AttemptTally = { attempted: 0, succeeded: 0, failed: 0 };
  readonly dispatchers: Record<Environment, EnvDispatcher>;

  constructor(emulator: Emulator) {
    const host = {
      agents: this.agents,
      timeoutMs: emulator.options.webhookTimeoutMs,
      chaos: () => this.chaosSetting,
      tally: this.sinceDrain,
    };
    this.dispatchers = Object.fromEntries(
      Object.values(emulator.envs).map((env) => [env.name, new EnvDispatcher(env, host)]),
    ) as Record<Environment, EnvDispatcher>;
    emulator.clock.onAdvance(() => this.kick());
    emulator.onReset(() => {
      this.chaosSetting = NO_CHAOS;
      Object.assign(this.sinceDrain, { attempted: 0, succeeded: 0, failed: 0 });
      for (const d of this.all()) d.reset();
    });
    emulator.onClose(async () => {
      await Promise.all(this.all().map((d) => d.close()));
      closeAgents(this.agents);
    });
  }

  private all(): EnvDispatcher[] {
    return Object.values(this.dispatchers);
  }

  of(env: EnvContext): EnvDispatcher {
    return this.dispatchers[env.name];
  }

  kick(): void {
    for (const d of this.all()) d.kick();
  }

  get chaos(): WebhookChaos {
    return this.chaosSetting;
  }

  setChaos(chaos: WebhookChaos | null): void {
    this.chaosSetting = chaos ?? NO_CHAOS;
  }

  /**
   * DESIGN: POST /_emulator/webhooks/drain — resolves once every delivery due now (on the
   * emulator's clock) has been attempted. It reports every attempt finished since the previous
   * drain (or the start, or a reset), whoever made it: sends start on their own after an insert or a
   * clock advance, so counting only those made during the call would depend on timing.
   */
  async drain(): Promise<AttemptTally> {
    for (;;) {
      for (const d of this.all()) d.pump();
      const busy = this.all().filter((d) => d.busy());
      if (busy.length === 0) break;
      await Promise.all(busy.map((d) => d.settled()));
      // A batch larger than the in-flight room leaves due rows behind: yield, then pump again.
      await new Promise((r) => setImmediate(r));
    }
    const tally = { ...this.sinceDrain };
    Object.assign(this.sinceDrain, { attempted: 0, succeeded: 0, failed: 0 });
    return tally;
  }
}

const services = new WeakMap<Emulator, WebhookService>();

/** The running webhook service of an emulator (routes look it up at request time). */
export function webhookService(emulator: Emulator): WebhookService {
  const service = services.get(emulator);
  if (!service) throw new Error('webhook service not started');
  return service;
}

/** Registered in emulator/services.ts. */
export function startWebhookService(emulator: Emulator): void {
  services.set(emulator, new WebhookService(emulator));
}
