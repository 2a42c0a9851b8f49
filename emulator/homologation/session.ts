import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import type { InjectedFault, Observation, RecordedCall, SessionDelivery, SessionView } from '../../src/contract/observation.js';
import { PUBLISH_FIRST } from '../../checks/internal/calls.js';
import { sessionSettings, type SessionSettings } from '../../checks/intake.js';
import { unsureStatuses } from '../../checks/retries.js';
import { acceptingOrders } from '../stores/present.js';
import { toSessionDelivery } from './data.js';
import { createSessionOrders, makeSampleOrder } from './session-orders.js';
import { openConditionalTasks, reissueTasks } from './session-tasks.js';
import { acceptLeftPending } from './session-merchant.js';
import { ProbeRun, sleep } from './session-probes.js';
import { erpItem } from './session-items.js';
import type { HomologationService } from './observer-state.js';

/** How often a running session looks at what the ERP did (tasks to open, orders to accept, the verdict). */
const WATCH_MS = 250;

/**
 * While a refused write's retry is due, the session's look is skipped (issue 27): a look grades every
 * check at once, tens of ms of blocked loop on a loaded machine, and a loop blocked when the retry's
 * bytes come cannot tell when they came (arrival.ts). Bounded: past the fault's Retry-After plus this,
 * the looks resume whether or not the ERP retried, so an ERP that never retries stalls nothing.
 */
const QUIET_AFTER_RETRY_AFTER_MS = 2000;

/** Retry-After of the injected faults: 1 s keeps a session short and still tells a waiting client from an eager one. */
const RETRY_AFTER = 1;
const FAULTS: InjectedFault[] = [
  { status: 503, retry_after: RETRY_AFTER, call_seq: null },
  { status: 429, retry_after: RETRY_AFTER, call_seq: null },
];

/** What the session asks of the emulator it runs in: its report's verdict (observe.ts). */
export interface SessionHooks {
  /** Whether the report of this observation is complete: every verdict is certain. */
  complete(observation: Observation): boolean;
}

/**
 * An observed homologation session of one integration (DESIGN: POST /_emulator/homologation/{id}/start):
 * arms one 503 and one 429 for its next idempotent writes; once the store has a product of the ERP
 * to order (DESIGN: Nothing to grade), has the simulator create the three scenario orders, a probe
 * order, two orders whose situation it arranges (the customer cancels one, the merchant accepts the
 * other in the panel) and the orders of the person's tasks; then, with a webhook, sends the signature
 * probes, a duplicate and an out-of-order delivery. While it watches it opens the tasks the ERP's
 * calls call for, re-issues a task whose order the ERP made final first, accepts as the merchant
 * what an `after_acceptance` ERP leaves pending, measures a retry again when the emulator was too
 * busy to tell, and ends as soon as every verdict is certain.
 */
export class ObserverSession {
  readonly view: SessionView;
  private readonly abort = new AbortController();
  done: Promise<void> = Promise.resolve();
  private watcher: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();
  private ticking = false;
  /** Session orders the merchant's acceptance (after_acceptance) already looked at. */
  private readonly looked = new Set<string>();
  /** Tasks whose re-issue was tried (once each). */
  private readonly reissued = new Set<string>();
  hooks: SessionHooks = { complete: () => false };
  /**
   * The regular deliveries of the session's orders as the last look read them (a report uses these:
   * reading them is the costly part of a look, done once per WATCH_MS, not once per report).
   */
  private deliveries: SessionDelivery[] = [];
  /** A refused write whose retry is due: its idempotency key and until when the looks wait for it. */
  private due: { key: string; until: number } | null = null;

  constructor(
    private readonly service: HomologationService,
    private readonly emulator: Emulator,
    readonly env: EnvContext,
    readonly integrationId: string,
    readonly storeId: string,
    timeoutSeconds: number,
  ) {
    const now = Date.now();
    this.view = {
      started_at: now,
      deadline: now + timeoutSeconds * 1000,
      orders: [],
      tasks: [],
      deliveries: [],
      probes: [],
      faults: FAULTS.map((f) => ({ ...f })),
      problems: [],
      waiting: null,
      webhook: null,
      finished: false,
      ended_at: null,
      ended_seq: null,
    };
  }

  /**
   * Arms the faults and, when the store has something to order, makes the session's orders and
   * tasks before answering (the start's report lists them); otherwise says what it waits for. The
   * rest (probes, the watch) runs in the background.
   */
  async begin(): Promise<void> {
    const store = this.service.store;
    await store.saveSession(this.integrationId, this.view);
    await store.arm(this.integrationId, this.view.faults);
    const blocked = await this.blocked();
    if (blocked === null) await this.makeOrders();
    else this.view.waiting = blocked;
    await this.save();
    this.watch();
    this.done = this.run()
      .catch((error: Error) => void this.view.problems.push(`the session stopped: ${error.message}`))
      .finally(() => {
        this.view.finished = true;
        void this.save();
      });
  }

  /** Stops the session's work (a new session, a reset, the emulator closing). */
  stop(): void {
    this.abort.abort();
    if (this.watcher) clearInterval(this.watcher);
    this.watcher = null;
  }

  /**
   * DESIGN: a session ends as soon as every verdict is certain: its report is frozen at `at` (later
   * calls do not change it), what it still had to send is not sent, and its faults are dropped.
   */
  async end(at: number, lastSeq: number): Promise<void> {
    if (this.view.ended_at !== null) return;
    this.view.ended_at = at;
    // The calls graded then, by their sequence: one recorded just after (it arrived earlier) is not added.
    this.view.ended_seq = lastSeq;
    this.view.finished = true;
    this.stop();
    await this.service.store.disarm(this.integrationId);
    await this.save();
  }

  /**
   * The view where the sandbox keeps it, so that a report asked of another process of a shared
   * sandbox shows the session as it is here. Saves run one after the other.
   */
  save(): Promise<void> {
    const v = this.view;
    const view = { ...v, tasks: v.tasks.map((t) => ({ ...t })), probes: [...v.probes], orders: [...v.orders], problems: [...v.problems], faults: v.faults.map((f) => ({ ...f })) };
    this.saving = this.saving.then(() => this.service.store.saveSession(this.integrationId, view)).catch(() => undefined);
    return this.saving;
  }

  /** The integration's settings as the panel has them now. */
  async settings(): Promise<SessionSettings> {
    const integration = await this.env.store.integrations.byId(this.integrationId);
    return sessionSettings(integration?.settings ?? {});
  }

  /** Why the session cannot make its orders now (DESIGN: Nothing to grade), or null when it can. */
  private async blocked(): Promise<string | null> {
    const store = await this.env.store.stores.byId(this.storeId);
    if (!store) return 'the store no longer exists';
    if (store.suspended) return 'the store is suspended in the panel: the session waits until it is not';
    if (!(await erpItem(this.env, this.storeId, this.integrationId))) return PUBLISH_FIRST;
    if (!(await acceptingOrders(this.env.store.stores, store))) return 'the store is paused: open it (PATCH /store {"accepting_orders": true}) so that the session can make its orders; it waits until then';
    return null;
  }

  /** The session's orders and tasks; the intake is decided here (DESIGN: an active webhook now, or the feed). */
  private async makeOrders(): Promise<void> {
    const webhook = await this.env.store.webhooks.get(this.integrationId);
    this.view.webhook = Boolean(webhook && webhook.active && !webhook.paused);
    this.view.waiting = null;
    const settings = await this.settings();
    await createSessionOrders(this.env, this.view, this.storeId, this.integrationId, () => this.nextTaskId(), { tasks: settings.order_status_authority !== 'service' });
    await this.refreshTasks(settings);
  }

  /** Waits for something to order, then probes the webhook (a feed integrator has none to probe). */
  private async run(): Promise<void> {
    while (this.view.waiting !== null) {
      if (this.abort.signal.aborted || Date.now() >= this.view.deadline) return;
      await sleep(WATCH_MS, this.abort.signal);
      const blocked = await this.blocked();
      if (blocked === null) await this.makeOrders();
      else this.view.waiting = blocked;
      await this.save();
    }
    if (!this.view.webhook) return;
    await new ProbeRun({
      env: this.env,
      service: this.service,
      integrationId: this.integrationId,
      storeId: this.storeId,
      view: this.view,
      signal: this.abort.signal,
      webhookTimeoutMs: this.emulator.options.webhookTimeoutMs,
      save: () => this.save(),
    }).run();
  }

  /** Every WATCH_MS until the session ends: one look at a time. */
  private watch(): void {
    this.watcher = setInterval(() => {
      if (this.ticking || this.abort.signal.aborted || this.retryDue(Date.now())) return;
      this.ticking = true;
      void this.tick().catch(() => undefined).finally(() => (this.ticking = false));
    }, WATCH_MS);
    this.watcher.unref();
  }

  /**
   * An injected fault is being answered to the write with `key` (hooks.ts, in this process): the
   * looks wait until its retry arrives, at most Retry-After plus QUIET_AFTER_RETRY_AFTER_MS.
   */
  faultAnswered(key: string, retryAfterSeconds: number): void {
    this.due = { key, until: Date.now() + retryAfterSeconds * 1000 + QUIET_AFTER_RETRY_AFTER_MS };
  }

  /** A write of the integration arrived (hooks.ts): the retry that was due, when it carries its key. */
  writeArrived(key: string): void {
    if (this.due?.key === key) this.due = null;
  }

  /**
   * Whether a look now would stand in a retry's way: one is due, and waiting for it keeps the look
   * before the session's deadline (a report frozen late would take calls made after it).
   */
  private retryDue(now: number): boolean {
    if (!this.due) return false;
    if (now >= this.due.until || this.due.until >= this.view.deadline) {
      this.due = null;
      return false;
    }
    return true;
  }

  /** One look: the deliveries read, the tasks and the merchant's acceptances, a retry measured again, the end when the verdict is certain. */
  private async tick(): Promise<void> {
    const now = Date.now();
    const settings = await this.settings();
    this.deliveries = await sessionDeliveries(this.env, this.integrationId, this.view);
    if (this.view.waiting === null && this.view.orders.length > 0 && now < this.view.deadline) {
      const before = JSON.stringify([this.view.tasks, this.view.faults.length, this.view.problems.length]);
      await this.refreshTasks(settings);
      if (settings.ack_expected === 'after_acceptance') await acceptLeftPending(this.env, this.view, this.looked, now);
      await this.measureAgain(await this.observation(settings));
      if (JSON.stringify([this.view.tasks, this.view.faults.length, this.view.problems.length]) !== before) await this.save();
    }
    const obs = await this.observation(settings);
    // Frozen at the very moment and calls it was graded with: the report stays what it was then.
    if (obs.now >= this.view.deadline || this.hooks.complete(obs)) await this.end(Math.min(obs.now, this.view.deadline), lastSeq(obs.calls));
  }

  /** The session's view for a report: the tasks the ERP's calls so far open, the deliveries of the last look. */
  async snapshot(): Promise<SessionView> {
    await this.refreshTasks(await this.settings());
    return { ...this.view, tasks: this.view.tasks.map((t) => ({ ...t })), faults: this.view.faults.map((f) => ({ ...f })), deliveries: this.deliveries };
  }

  private nextTaskId(): string {
    return `tsk_${this.view.tasks.length + 1}`;
  }

  /** What the graders read of this session now (for its own decisions), with the deliveries of the last look. */
  private async observation(settings: SessionSettings): Promise<Observation> {
    const calls = await this.service.store.calls(this.integrationId);
    const session = { ...this.view, faults: this.view.faults.map((f) => ({ ...f })), deliveries: this.deliveries };
    return { integration_id: this.integrationId, environment: this.env.name, scopes: [], calls, session, now: Date.now(), settings, webhook_active: Boolean(this.view.webhook) };
  }

  /**
   * Opens the tasks the ERP's calls call for, and re-issues those whose order the ERP made final
   * first; what changed is saved before it returns. A report asked of this process opens tasks too
   * (snapshot), and the other processes of a shared sandbox, where the person may read the tasks,
   * show the view as saved: a task opened there and left unsaved stayed open until the deadline.
   */
  private async refreshTasks(settings: SessionSettings): Promise<void> {
    if (Date.now() >= this.view.deadline || this.abort.signal.aborted || this.view.ended_at !== null) return;
    const before = JSON.stringify(this.view.tasks);
    const obs = await this.observation(settings);
    await openConditionalTasks({ env: this.env, storeId: this.storeId, integrationId: this.integrationId, view: this.view, calls: obs.calls, nextTaskId: () => this.nextTaskId() });
    await reissueTasks(this.env, obs, this.view, this.storeId, this.integrationId, () => this.nextTaskId(), this.reissued);
    if (JSON.stringify(this.view.tasks) !== before) await this.save();
  }

  /**
   * DESIGN: retry timing — when the emulator was too busy to tell whether a retry waited, one more
   * fault of that status is armed and an order made, so the ERP's next write measures it again.
   */
  private async measureAgain(obs: Observation): Promise<void> {
    bindFaults(obs.session.faults, obs.calls);
    const statuses = unsureStatuses(obs);
    if (!statuses.length) return;
    const again = statuses.map((status) => ({ status, retry_after: RETRY_AFTER, call_seq: null }));
    this.view.faults.push(...again);
    await this.service.store.arm(this.integrationId, again);
    await makeSampleOrder(this.env, this.view, this.storeId, this.integrationId);
  }
}

/** The regular deliveries of a session's orders, read now. */
export async function sessionDeliveries(env: EnvContext, integrationId: string, view: SessionView) {
  const deliveries = [];
  for (const o of view.orders) {
    for (const d of await env.store.webhooks.deliveriesAboutOrder(integrationId, o.order_id)) deliveries.push(toSessionDelivery(d, env.clock));
  }
  return deliveries;
}

/**
 * Each injected fault names the call it answered: the injected calls of its status, in the order
 * they were recorded (faults are taken in the order they were armed), whichever process served them.
 */
export function bindFaults(faults: InjectedFault[], calls: RecordedCall[]): void {
  const used = new Set<number>();
  for (const fault of faults) {
    const call = calls.find((c) => c.injected && c.status === fault.status && !used.has(c.seq));
    fault.call_seq = call ? call.seq : null;
    if (call) used.add(call.seq);
  }
}

/** The sequence of the last of `calls` (0 without any). */
export const lastSeq = (calls: RecordedCall[]) => calls.reduce((m, c) => Math.max(m, c.seq), 0);
