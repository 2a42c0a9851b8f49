import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit, note, withSpinner } from '../../output.js';
import type { OrdersListOptions } from './index.js';
import { printOrders } from './show.js';

/** GET /orders: the first page, or every page with `--all`. */
export async function ordersListAction(options: OrdersListOptions, command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  const paginator = ctx.client().orders.list({
    status: options.status?.join(','),
    ack_status: options.ackStatus,
    updated_since: options.since,
    limit: options.limit,
  });
  let orders;
  if (options.all) orders = await withSpinner('Reading every page of orders', () => paginator.all(), { json: ctx.json });
  else {
    const page = await paginator.first();
    orders = page.data;
    if (page.nextCursor && !ctx.json) note('More orders on the next pages: add --all to read them all.');
  }
  emit(ctx.json, orders, printOrders);
}
