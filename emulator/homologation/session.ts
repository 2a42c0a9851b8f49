import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import { changeStatus } from '../orders/commands.js';
import type { InjectedFault, ProbeRecord, SessionView } from '../../src/contract/observation.js';
import { toSessionDelivery } from './data.js';
import { createSessionOrders } from './session-orders.js';
import { openConditionalTasks } from './session-tasks.js';
import { reformatted, sendProbe, STALE_SECONDS, testEventBody, randomSecret, validSecrets, type ProbeDelivery } from './probes.js';
import type { HomologationService } from './observer-state.js';

/** How often a running session looks for the tasks the ERP's calls open. */
const WATCH_MS = 250;

/** How long the session waits for the integration's receiver to take a regular delivery before probing on. */
const DELIVERY_WAIT_MS = 5000;

/** The ERP's quiet time on the probe order before the out-of-order probe, and the longest wait for it. */
const QUIET_MS = 300;
const QUIET_CAP_MS = 2000;

/** Retry-After of the injected faults: 1 s keeps a session short and still tells a waiting client from an eager one. */
const FAULTS: InjectedFault[] = [
  { status: 503, retry_after: 1, call_seq: null },
  { status: 429, retry_after: 1, call_seq: null },
];

/** Waits `ms` or until the session stops; the abort listener goes when the timer fires (a session sleeps thousands of times). */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/**
 * An observed homologation session of one integration (DESIGN: POST /_emulator/homologation/{id}/start):
 * arms one 503 and one 429 for its next idempotent writes; has the simulator create the three
 * scenario orders, a probe order, two orders whose situation it arranges (the customer cancels
 * one, the merchant accepts the other in the panel) and the orders of the person's tasks; then
 * sends the signature probes, a duplicate and an out-of-order delivery to its webhook. Grading
 * reads the calls the integration makes meanwhile.
 */
export class ObserverSession {
  readonly view: SessionView;
  private readonly abort = new AbortController();
  done: Promise<void> = Promise.resolve();
  private watcher: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly service: HomologationService,
    private readonly emulator: Emulator,
    readonly env: EnvContext,
    readonly integrationId: string,
    readonly storeId: string,
    timeoutSeconds: number,
  ) {
    const now = Date.now();
    this.view = { started_at: now, deadline: now + timeoutSeconds * 1000, orders: [], tasks: [], deliveries: [], probes: [], faults: FAULTS.map((f) => ({ ...f })), problems: [], finished: false };
  }

  /**
   * Arms the faults, makes the session's orders and tasks, then probes in the background. The
   * session is already the integration's (its faults are taken) while its orders are made.
   */
  async begin(): Promise<void> {
    const store = this.service.store;
    await store.saveSession(this.integrationId, this.view);
    await store.arm(this.integrationId, this.view.faults);
    await createSessionOrders(this.env, this.view, this.storeId, this.integrationId, () => this.nextTaskId());
    await this.refreshTasks();
    await this.save();
    this.watch();
    this.done = this.probe().catch((error: Error) => {
      this.view.problems.push(`the session stopped: ${error.message}`);
    }).finally(() => {
      this.view.finished = true;
      void this.save();
    });
  }

  stop(): void {
    this.abort.abort();
    if (this.watcher) clearInterval(this.watcher);
  }

  /**
   * The view where the sandbox keeps it, so that a report asked of another process of a shared
   * sandbox shows the session as it is here. Saves run one after the other.
   */
  save(): Promise<void> {
    const view = { ...this.view, tasks: [...this.view.tasks], probes: [...this.view.probes], orders: [...this.view.orders], problems: [...this.view.problems] };
    this.saving = this.saving.then(() => this.service.store.saveSession(this.integrationId, view)).catch(() => undefined);
    return this.saving;
  }

  /** Until the session's time is up, the tasks the ERP's calls open are opened (and saved) as they come. */
  private watch(): void {
    this.watcher = setInterval(() => {
      if (Date.now() >= this.view.deadline || this.abort.signal.aborted) {
        if (this.watcher) clearInterval(this.watcher);
        return;
      }
      const before = this.view.tasks.length;
      void this.refreshTasks().then(() => (this.view.tasks.length !== before ? this.save() : undefined)).catch(() => undefined);
    }, WATCH_MS);
    this.watcher.unref();
  }

  /** The session's view: the tasks the ERP's calls so far open, the regular deliveries of its orders read fresh. */
  async snapshot(): Promise<SessionView> {
    await this.refreshTasks();
    const deliveries = [];
    for (const o of this.view.orders) {
      for (const d of await this.env.store.webhooks.deliveriesAboutOrder(this.integrationId, o.order_id)) deliveries.push(toSessionDelivery(d, this.env.clock));
    }
    return { ...this.view, tasks: [...this.view.tasks], deliveries };
  }

  private nextTaskId(): string {
    return `tsk_${this.view.tasks.length + 1}`;
  }

  /** Opens the tasks that depend on the ERP's calls (until the session's time is up). */
  private async refreshTasks(): Promise<void> {
    if (Date.now() >= this.view.deadline || this.abort.signal.aborted) return;
    const calls = await this.service.store.calls(this.integrationId);
    await openConditionalTasks({ env: this.env, storeId: this.storeId, integrationId: this.integrationId, view: this.view, calls, nextTaskId: () => this.nextTaskId() });
  }

  private async send(probe: ProbeDelivery): Promise<ProbeRecord | null> {
    const webhook = await this.env.store.webhooks.get(this.integrationId);
    if (!webhook) return null;
    const record = await sendProbe(this.env, this.service.agents, webhook, probe, this.abort.signal, this.emulator.options.webhookTimeoutMs);
    if (!this.abort.signal.aborted) {
      this.view.probes.push(record);
      await this.save();
    }
    return record;
  }

  private async probe(): Promise<void> {
    const webhook = await this.env.store.webhooks.get(this.integrationId);
    if (!webhook || !webhook.active) {
      this.view.problems.push('the integration has no active webhook: no probe could be sent (PUT /webhook first)');
      return;
    }
    const secrets = validSecrets(this.env, webhook);
    const testEvent = () => {
      const id = this.env.ids.next('event');
      return { eventId: id, eventType: 'webhook.test', body: testEventBody(this.env, this.storeId, this.integrationId, id) };
    };
    await this.send({ kind: 'bad_signature', ...testEvent(), secrets, skewSeconds: 0, corrupt: true });
    await this.send({ kind: 'stale_timestamp', ...testEvent(), secrets, skewSeconds: -STALE_SECONDS, corrupt: false });
    await this.send({ kind: 'unknown_secret', ...testEvent(), secrets: [randomSecret()], skewSeconds: 0, corrupt: false });
    const plain = testEvent();
    await this.send({ kind: 'reserialised', ...plain, body: reformatted(plain.body), secrets, skewSeconds: 0, corrupt: false });
    await this.duplicateAndOutOfOrder(secrets);
  }

  /** Waits until a regular delivery about the order matches, or the wait runs out. */
  private async deliveredTo(orderId: string, type: string) {
    const until = Date.now() + DELIVERY_WAIT_MS;
    for (;;) {
      const found = (await this.env.store.webhooks.deliveriesAboutOrder(this.integrationId, orderId)).find((d) => d.eventType === type);
      if ((found && found.succeededAt !== null) || Date.now() > until || this.abort.signal.aborted) return found;
      await sleep(50, this.abort.signal);
    }
  }

  /**
   * Waits until the ERP has worked on the order and left it alone for QUIET_MS (up to QUIET_CAP_MS): what it does
   * after the out-of-order probe is judged as acting on the older version, so its own work on the
   * order's first version (a busy ERP imports late) is let through first.
   */
  private async quietOn(orderId: string): Promise<void> {
    const prefix = `/orders/${orderId}/`;
    const until = Date.now() + QUIET_CAP_MS;
    while (Date.now() < until && !this.abort.signal.aborted) {
      const last = (await this.service.store.calls(this.integrationId)).filter((c) => c.path.startsWith(prefix)).pop();
      // No call yet: the ERP has not taken the order up (or never will: then the cap ends the wait).
      if (last && Date.now() - (last.at + last.duration_ms) >= QUIET_MS) return;
      await sleep(50, this.abort.signal);
    }
  }

  private async duplicateAndOutOfOrder(secrets: string[]): Promise<void> {
    const probeOrder = this.view.orders.find((o) => o.scenario === 'probe');
    if (!probeOrder) return;
    const created = await this.deliveredTo(probeOrder.order_id, 'order.created');
    if (!created) {
      this.view.problems.push('the probe order was never delivered: no duplicate or out-of-order probe');
      return;
    }
    if (created.succeededAt === null) this.view.problems.push('the probe order\'s order.created delivery did not succeed within 5 s');
    // The same event again (same id and body): the receiver answers 2xx and processes it once.
    await this.send({ kind: 'duplicate', eventId: created.eventId, eventType: created.eventType, body: created.body, secrets, skewSeconds: 0, corrupt: false });
    await this.quietOn(probeOrder.order_id);
    // Newer version first (the order is cancelled, a regular delivery), then the older one again.
    try {
      await changeStatus(this.env, probeOrder.order_id, null, { type: 'system', integrationId: null }, { status: 'cancelled', reason: 'Cancelled by the homologation session (out-of-order probe)' });
    } catch (error) {
      this.view.problems.push(`the probe order could not be cancelled: ${(error as Error).message}`);
      return;
    }
    await this.deliveredTo(probeOrder.order_id, 'order.status_changed');
    const older = JSON.parse(created.body) as Record<string, unknown>;
    const eventId = this.env.ids.next('event');
    const body = JSON.stringify({ ...older, id: eventId, type: 'order.updated' });
    await this.send({ kind: 'out_of_order', eventId, eventType: 'order.updated', body, secrets, skewSeconds: 0, corrupt: false });
  }
}
