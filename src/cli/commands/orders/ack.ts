import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit } from '../../output.js';
import type { AckOptions } from './index.js';
import { printOrder } from './show.js';

/** POST /orders/{order_id}/ack (the client adds the Idempotency-Key and keeps it across retries). */
export async function ordersAckAction(id: string, options: AckOptions, command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  const body = { external_id: options.externalId, ...(options.externalNumber === undefined ? {} : { external_number: options.externalNumber }) };
  emit(ctx.json, await ctx.client().orders.ack(id, body), printOrder);
}
