import { randomUUID } from 'node:crypto';
import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { Environment } from '../../src/contract/store.js';
import { isPromise, whenReady, type MaybePromise } from '../store/maybe.js';
import type { WebhookChaos } from '../../src/contract/webhooks.js';
import { EnvDispatcher, type AttemptTally } from './dispatcher.js';
import { enqueueDeliveries } from './outbox.js';
import { closeAgents, createAgents } from './sender.js';

/**
 * The webhook dispatcher of the whole emulator: one queue per environment, one chaos setting (in
 * the storage's coordination: a sandbox of several processes shares it), and the outbox every
 * emitted event passes through.
 */
export class WebhookService {
  private readonly agents = createAgents();
  /** Attempts finished since the last drain. */
  private readonly sinceDrain: AttemptTally = { attempted: 0, succeeded: 0, failed: 0 };
  readonly dispatchers: Record<Environment, EnvDispatcher>;
  private chaosNow: WebhookChaos;

  constructor(private readonly emulator: Emulator) {
    const chaos = emulator.storage.coordination.chaos;
    const initial = chaos.get();
    this.chaosNow = isPromise(initial) ? { duplicate_rate: 0, reorder: false, delay_ms: 0 } : initial;
    const host = {
      agents: this.agents,
      timeoutMs: emulator.options.webhookTimeoutMs,
      leaseMarginMs: emulator.options.webhookLeaseMarginMs,
      chaos: () => this.currentChaos(),
      freshChaos: () => this.freshChaos(),
      tally: this.sinceDrain,
      owner: randomUUID(),
      shared: emulator.storage.shared,
    };
    this.dispatchers = Object.fromEntries(
      Object.values(emulator.envs).map((env) => [env.name, new EnvDispatcher(env, host)]),
    ) as Record<Environment, EnvDispatcher>;
    // The outbox: deliveries written in the event's transaction, sent once it has committed.
    emulator.outbox = async (tx, event) => {
      const dispatcher = this.dispatchers[tx.environment];
      const env = emulator.env(tx.environment);
      const written = await enqueueDeliveries(tx, event, () => env.ids.next('delivery'), () => 1 + dispatcher.duplicates());
      if (written > 0) tx.afterCommit(() => dispatcher.kick('insert'));
      return written;
    };
    emulator.clock.onAdvance(() => this.kick());
    emulator.onReset(async () => {
      await this.refreshChaos();
      Object.assign(this.sinceDrain, { attempted: 0, succeeded: 0, failed: 0 });
      for (const d of this.all()) d.reset();
    });
    const sweep = setInterval(() => {
      for (const d of this.all()) void d.expireLeases().catch(() => undefined);
    }, emulator.options.webhookLeaseSweepMs);
    sweep.unref();
    emulator.onClose(async () => {
      clearInterval(sweep);
      emulator.outbox = null;
      await Promise.all(this.all().map((d) => d.close()));
      closeAgents(this.agents);
    });
  }

  async start(): Promise<void> {
    await this.refreshChaos();
    for (const d of this.all()) await d.start();
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
    return this.chaosNow;
  }

  async setChaos(chaos: WebhookChaos | null): Promise<void> {
    await this.emulator.storage.coordination.chaos.set(chaos);
    await this.refreshChaos();
  }

  /**
   * The chaos setting as the storage holds it now: on a shared database another process may have
   * changed it (each request reads it again; a change's notice makes the next read ask the database).
   */
  private freshChaos(): MaybePromise<WebhookChaos> {
    return whenReady(this.emulator.storage.coordination.chaos.get(), (chaos) => (this.chaosNow = chaos));
  }

  /**
   * The same at once (the outbox runs inside a transaction, which must not wait for another
   * connection): the setting last read — by this request at its start — while a read that must ask
   * the database goes on for the next call.
   */
  private currentChaos(): WebhookChaos {
    const fresh = this.freshChaos();
    if (!isPromise(fresh)) return fresh;
    void fresh.catch(() => undefined);
    return (this.chaosNow = this.emulator.storage.coordination.chaos.current());
  }

  /** The shared chaos setting, read again (another process may have changed it). */
  async refreshChaos(): Promise<WebhookChaos> {
    this.chaosNow = await this.emulator.storage.coordination.chaos.get();
    return this.chaosNow;
  }

  /**
   * DESIGN: POST /_emulator/webhooks/drain — resolves once every delivery due now (on the
   * emulator's clock) has been attempted. It reports every attempt finished since the previous
   * drain (or the start, or a reset), whoever made it: sends start on their own after an insert or a
   * clock advance, so counting only those made during the call would depend on timing.
   */
  async drain(): Promise<AttemptTally> {
    for (;;) {
      for (const d of this.all()) await d.pump();
      const busy: EnvDispatcher[] = [];
      for (const d of this.all()) if (await d.busy()) busy.push(d);
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
export async function startWebhookService(emulator: Emulator): Promise<void> {
  const service = new WebhookService(emulator);
  services.set(emulator, service);
  await service.start();
}
