import { ok, type Api } from './api.js';
import type { Inbox, ZooOrder } from './intake.js';

// What the zoo's ERPs do with an order, as policies a variant picks: import it (ack, or
// import-failure for a product without code), and the moves of its own (its kitchen, an automatic
// acceptance, a rule of its own that finishes some orders).

export const FINAL = ['completed', 'rejected', 'cancelled'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Policy {
  /** Imports only once the order is no longer pending (ack_expected: after_acceptance). */
  importAfterAcceptance?: boolean;
  /** Which orders its kitchen takes forward by itself: accepted with an estimate, ready, completed. */
  kitchen?: 'delivery' | 'none';
  /** Accepts every order by itself as it arrives. */
  autoAccept?: boolean;
  /** A rule of its own that makes some orders final at once (legal moves). */
  finish?: (order: ZooOrder) => { status: 'rejected' | 'cancelled'; reason: string } | { status: 'completed' } | null;
  /** Tries one status move and reads a 403 status_authority_denied as "the service decides" (order_status_authority: service). */
  noMoves?: boolean;
  /** Broken (with noMoves): sends a move refused with 403 status_authority_denied again, unchanged. */
  repeatsDenied?: boolean;
  /** Broken: its kitchen goes on whatever the order's newest status is and whatever the answers say. */
  actsOnFinal?: boolean;
  /** Waits this long before working on an order (a slow ERP). */
  workAfterMs?: number;
  /** Broken: whether an order is imported is read from the version it was handed, so an older version is imported again. */
  importsByVersion?: boolean;
}

/** The order handling of one ERP; `handle` is the inbox's `onOrder`. */
export class BackOffice {
  private readonly imported = new Set<string>();
  private readonly cooked = new Set<string>();
  private readonly finished = new Set<string>();
  private statusDenied = false;

  constructor(
    private readonly api: Api,
    private readonly inbox: () => Inbox,
    private readonly policy: Policy,
    readonly errors: string[],
  ) {}

  private newest(id: string): ZooOrder | undefined {
    return this.inbox().orders.get(id);
  }

  /** A status move; its answer's order is news. Returns whether it was taken. */
  async move(id: string, body: Record<string, unknown>): Promise<boolean> {
    const a = await this.api.write('POST', `/orders/${id}/status`, body);
    if (ok(a)) this.inbox().remember(a.body.data);
    else if (a.body?.error?.code === 'status_authority_denied') this.statusDenied = true;
    else if (a.body?.error?.code !== 'invalid_status_transition') this.errors.push(`move ${id} ${String(body.status)}: ${a.status} ${a.body?.error?.code}`);
    return ok(a);
  }

  async handle(order: ZooOrder): Promise<void> {
    if (this.policy.workAfterMs) await sleep(this.policy.workAfterMs);
    const current = this.newest(order.id) ?? order;
    // Broken on purpose, and shown on every run: it imports from the version it was handed, so an
    // answer that came in meanwhile (its own first import's, finishing after a Retry-After) cannot
    // hide the older version from it.
    await this.importOrder(this.policy.importsByVersion ? order : current);
    await this.ownMoves(current);
  }

  private async importOrder(order: ZooOrder): Promise<void> {
    if ((!this.policy.importsByVersion && this.imported.has(order.id)) || order.integration.ack_status !== 'pending' || FINAL.includes(order.status)) return;
    if (this.policy.importAfterAcceptance && order.status === 'pending') return;
    this.imported.add(order.id);
    const unmapped = order.items.some((i) => i.product.external_id === null);
    const a = unmapped
      ? await this.api.write('POST', `/orders/${order.id}/import-failure`, { code: 'unmapped_product', message: 'Producto sin código en el ERP.', retryable: true })
      : await this.api.write('POST', `/orders/${order.id}/ack`, { external_id: `ZOO-${order.number}`, external_number: String(order.number) });
    if (ok(a)) this.inbox().remember(a.body.data);
    else this.errors.push(`import ${order.id}: ${a.status} ${a.body?.error?.code}`);
  }

  private async ownMoves(order: ZooOrder): Promise<void> {
    const p = this.policy;
    if (p.noMoves) {
      // It tries once; the 403 status_authority_denied tells it the service decides, and it stops.
      if (this.statusDenied || order.status !== 'pending') return;
      const body = { status: 'accepted', estimated_minutes: 15 };
      if (!(await this.move(order.id, body)) && this.statusDenied && p.repeatsDenied) await this.api.write('POST', `/orders/${order.id}/status`, body);
      return;
    }
    const rule = p.finish?.(order);
    if (rule && !this.finished.has(order.id)) {
      this.finished.add(order.id);
      // Completed: accepted first; a refused acceptance (the order is final already) ends it there.
      if (rule.status === 'completed' && order.status === 'pending' && !(await this.move(order.id, { status: 'accepted', estimated_minutes: 10 }))) return;
      await this.move(order.id, rule);
      return;
    }
    if (p.autoAccept && this.newest(order.id)?.status === 'pending') await this.move(order.id, { status: 'accepted', estimated_minutes: 20 });
    if (p.kitchen === 'delivery' && order.fulfillment_type === 'delivery' && !this.cooked.has(order.id)) await this.cook(order.id);
  }

  /** Accepted with an estimate, ready, completed: each move from the status it holds as newest. */
  private async cook(id: string): Promise<void> {
    const at = () => this.newest(id)?.status ?? 'pending';
    if (this.policy.actsOnFinal) {
      this.cooked.add(id);
      for (const body of [{ status: 'accepted', estimated_minutes: 30 }, { status: 'ready' }, { status: 'completed' }]) {
        await this.api.write('POST', `/orders/${id}/status`, body);
        await sleep(100);
      }
      return;
    }
    if (FINAL.includes(at()) || this.policy.importAfterAcceptance && at() === 'pending') return;
    this.cooked.add(id);
    if (at() === 'pending' && !(await this.move(id, { status: 'accepted', estimated_minutes: 30 }))) return;
    if (['accepted', 'preparing'].includes(at()) && !(await this.move(id, { status: 'ready' }))) return;
    if (at() === 'ready') await this.move(id, { status: 'completed' });
  }
}
