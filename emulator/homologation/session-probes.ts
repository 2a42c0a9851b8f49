import type { EnvContext } from '../context.js';
import { changeStatus } from '../orders/commands.js';
import type { ProbeRecord, SessionView } from '../../src/contract/observation.js';
import { apiMeaning } from '../../checks/internal/api-meaning.js';
import { reformatted, sendProbe, STALE_SECONDS, testEventBody, randomSecret, validSecrets, type ProbeDelivery } from './probes.js';
import type { HomologationService } from './observer-state.js';

/** Waits before a probe that got no answer is sent again (the receiver may be restarting); the last one repeats. */
const RESEND_MS = [1000, 2000, 4000, 8000, 15_000];

/** How long the session waits for the receiver to take the probe order's regular delivery before probing on. */
const DELIVERY_WAIT_MS = 5000;

/** The ERP's quiet time on the probe order before the out-of-order probe, and the longest wait for it. */
const QUIET_MS = 300;
const QUIET_CAP_MS = 2000;

const FINAL = ['completed', 'rejected', 'cancelled'];

/** What the probes need of their session. */
export interface ProbeHost {
  env: EnvContext;
  service: HomologationService;
  integrationId: string;
  storeId: string;
  view: SessionView;
  signal: AbortSignal;
  webhookTimeoutMs?: number;
  save(): Promise<void>;
}

/** Waits `ms` or until the session stops; the abort listener goes when the timer fires. */
export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/**
 * The session's deliveries of its own to the integration's webhook: the bad-signature, stale,
 * unknown-secret and re-serialised probes, then a duplicate of the probe order's order.created and,
 * once the probe order is final (cancelled by the session, or made final by the ERP first), its
 * older version. A probe that gets no answer is sent again until it gets one or the session ends.
 */
export class ProbeRun {
  constructor(private readonly host: ProbeHost) {}

  private get stopped(): boolean {
    return this.host.signal.aborted || Date.now() >= this.host.view.deadline;
  }

  async run(): Promise<void> {
    const { env, integrationId, storeId } = this.host;
    const webhook = await env.store.webhooks.get(integrationId);
    if (!webhook) return;
    const secrets = validSecrets(env, webhook);
    const testEvent = () => {
      const id = env.ids.next('event');
      return { eventId: id, eventType: 'webhook.test', body: testEventBody(env, storeId, integrationId, id) };
    };
    await this.deliver({ kind: 'bad_signature', ...testEvent(), secrets, skewSeconds: 0, corrupt: true });
    await this.deliver({ kind: 'stale_timestamp', ...testEvent(), secrets, skewSeconds: -STALE_SECONDS, corrupt: false });
    await this.deliver({ kind: 'unknown_secret', ...testEvent(), secrets: [randomSecret()], skewSeconds: 0, corrupt: false });
    const plain = testEvent();
    await this.deliver({ kind: 'reserialised', ...plain, body: reformatted(plain.body), secrets, skewSeconds: 0, corrupt: false });
    await this.duplicateAndOutOfOrder(secrets);
  }

  /** Sends a probe until it gets an answer (each attempt kept), or the session ends. */
  private async deliver(probe: ProbeDelivery): Promise<ProbeRecord | null> {
    for (let attempt = 0; !this.stopped; attempt++) {
      const webhook = await this.host.env.store.webhooks.get(this.host.integrationId);
      if (!webhook) return null;
      // Known as being sent before it goes: the ERP may act on it before its answer comes back (the
      // duplicate's judgement ends where the out-of-order probe begins).
      this.host.view.sending = { kind: probe.kind, sent_at: Date.now() };
      await this.host.save();
      const record = await sendProbe(this.host.env, this.host.service.agents, webhook, probe, this.host.signal, this.host.webhookTimeoutMs);
      if (this.host.signal.aborted) return null;
      this.host.view.sending = null;
      this.host.view.probes.push(record);
      await this.host.save();
      if (record.status !== null) return record;
      await sleep(RESEND_MS[Math.min(attempt, RESEND_MS.length - 1)]!, this.host.signal);
    }
    return null;
  }

  /** Waits until a regular delivery about the order succeeded, or the wait runs out; the delivery as it is then. */
  private async deliveredTo(orderId: string, type: string) {
    const until = Date.now() + DELIVERY_WAIT_MS;
    for (;;) {
      const found = (await this.host.env.store.webhooks.deliveriesAboutOrder(this.host.integrationId, orderId)).find((d) => d.eventType === type);
      if ((found && found.succeededAt !== null) || Date.now() > until || this.host.signal.aborted) return found;
      await sleep(50, this.host.signal);
    }
  }

  /**
   * Waits until the ERP has worked on the order and left it alone for QUIET_MS (up to QUIET_CAP_MS):
   * what it does after the out-of-order probe is judged, so its own work on the order's first
   * version (a busy ERP imports late) is let through first.
   */
  private async quietOn(orderId: string): Promise<void> {
    const prefix = `/orders/${orderId}/`;
    const until = Date.now() + QUIET_CAP_MS;
    while (Date.now() < until && !this.host.signal.aborted) {
      const last = (await this.host.service.store.calls(this.host.integrationId)).filter((c) => c.path.startsWith(prefix)).pop();
      // No call yet: the ERP has not taken the order up (or never will: then the cap ends the wait).
      if (last && Date.now() - (last.at + last.duration_ms) >= QUIET_MS) return;
      await sleep(50, this.host.signal);
    }
  }

  private async duplicateAndOutOfOrder(secrets: string[]): Promise<void> {
    const { env, view } = this.host;
    const probeOrder = view.orders.find((o) => o.scenario === 'probe');
    if (!probeOrder) return;
    const created = await this.deliveredTo(probeOrder.order_id, 'order.created');
    if (!created) {
      view.problems.push(`the probe order #${probeOrder.number} was never delivered: no duplicate or out-of-order probe`);
      return;
    }
    // The same event again (same id and body): the receiver answers 2xx and processes it once.
    await this.deliver({ kind: 'duplicate', eventId: created.eventId, eventType: created.eventType, body: created.body, secrets, skewSeconds: 0, corrupt: false });
    await this.quietOn(probeOrder.order_id);
    // Newer version first: the session cancels the order (a regular delivery). DESIGN: when the ERP
    // made it final first (rejected or completed, legally), its final version is the newer one.
    const current = await env.store.orders.byId(probeOrder.order_id);
    if (current && !FINAL.includes(current.status)) {
      try {
        await changeStatus(env, probeOrder.order_id, null, { type: 'system', integrationId: null }, { status: 'cancelled', reason: 'Cancelled by the homologation session (out-of-order probe)' });
        await this.deliveredTo(probeOrder.order_id, 'order.status_changed');
      } catch (error) {
        const now = await env.store.orders.byId(probeOrder.order_id);
        if (!now || !FINAL.includes(now.status)) {
          view.problems.push(`the probe order #${probeOrder.number} could not be cancelled, so no older version was sent: ${apiMeaning(error)}`);
          return;
        }
      }
    }
    const older = JSON.parse(created.body) as Record<string, unknown>;
    const eventId = env.ids.next('event');
    const body = JSON.stringify({ ...older, id: eventId, type: 'order.updated' });
    await this.deliver({ kind: 'out_of_order', eventId, eventType: 'order.updated', body, secrets, skewSeconds: 0, corrupt: false });
  }
}
