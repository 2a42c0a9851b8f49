import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit } from '../../output.js';
import { ORDER_STATUSES } from '../../options.js';
import type { StatusOptions } from './index.js';
import { printOrder } from './show.js';

/** The flag of each body field a local check may name. */
const FLAGS: Record<string, string> = { reason: '--reason', estimated_minutes: '--minutes' };

/**
 * POST /orders/{order_id}/status. The contract's own rules of the body (a reason for rejected and
 * cancelled, minutes only with accepted) are checked first: a missing flag is a usage error (exit 2)
 * before any call. Everything else (the transition, the reason's length) is the API's to judge.
 */
export async function ordersStatusAction(id: string, status: string, options: StatusOptions, command: Command): Promise<void> {
  if (!(ORDER_STATUSES as readonly string[]).includes(status)) {
    throw usageError(`error: unknown status "${status}"; accepted: ${ORDER_STATUSES.join(', ')}`);
  }
  const body = {
    status: status as (typeof ORDER_STATUSES)[number],
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    ...(options.minutes === undefined ? {} : { estimated_minutes: options.minutes }),
    ...(options.occurredAt === undefined ? {} : { occurred_at: options.occurredAt }),
  };
  await checkFlags(body, status);
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().orders.setStatus(id, body), printOrder);
}

/** A rule of the status body that a flag breaks by its absence or presence (spec: status body). */
async function checkFlags(body: Record<string, unknown>, status: string): Promise<void> {
  const { statusChangeBody } = await import('../../../contract/orders.js');
  const checked = statusChangeBody.safeParse(body);
  if (checked.success) return;
  for (const issue of checked.error.issues) {
    const field = String(issue.path[0] ?? '');
    const flag = FLAGS[field];
    if (!flag) continue;
    if (field === 'reason' && body.reason === undefined) {
      throw usageError(`error: orders status ${status} needs --reason "…" (the customer reads it: 3 to 255 characters)`);
    }
    if (field === 'estimated_minutes' && body.estimated_minutes !== undefined && (issue as { params?: { code?: string } }).params?.code === 'not_allowed') {
      throw usageError(`error: --minutes goes only with accepted, not ${status}`);
    }
  }
}
