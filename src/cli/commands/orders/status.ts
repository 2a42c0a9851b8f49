import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit } from '../../output.js';
import { ORDER_STATUSES } from '../../options.js';
import type { StatusOptions } from './index.js';
import { printOrder } from './show.js';

/** POST /orders/{order_id}/status; the API checks the transition and the reason rules. */
export async function ordersStatusAction(id: string, status: string, options: StatusOptions, command: Command): Promise<void> {
  if (!(ORDER_STATUSES as readonly string[]).includes(status)) {
    throw usageError(`error: unknown status "${status}"; accepted: ${ORDER_STATUSES.join(', ')}`);
  }
  const ctx = await resolveContext(command);
  const body = {
    status: status as (typeof ORDER_STATUSES)[number],
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    ...(options.minutes === undefined ? {} : { estimated_minutes: options.minutes }),
    ...(options.occurredAt === undefined ? {} : { occurred_at: options.occurredAt }),
  };
  emit(ctx.json, await ctx.client().orders.setStatus(id, body), printOrder);
}
