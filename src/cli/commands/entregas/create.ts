import type { Command } from 'commander';
import type { BodyOf } from '../../../client/index.js';
import type { createEntrega } from '../../../contract/webhooks-endpoints.js';
import { resolveContext } from '../../context.js';
import { usageError } from '../../errors.js';
import { emit } from '../../output.js';
import type { CreateOptions } from './index.js';
import { printEntrega } from './show.js';

type CreateBody = BodyOf<typeof createEntrega>;

/** The request body from the flags: an order's delivery, or a manual one; only the given fields are sent. */
function createBody(o: CreateOptions): CreateBody {
  const manual = o.customerName !== undefined || o.customerPhone !== undefined || o.address !== undefined;
  if (!o.orderId && !manual) throw usageError('error: give --order-id ord_… or the manual delivery flags (--customer-name, --customer-phone, --address, …)');
  const body: Record<string, unknown> = { request_key: o.requestKey };
  if (o.orderId) body.order_id = o.orderId;
  if (o.customerName !== undefined || o.customerPhone !== undefined) body.customer = { name: o.customerName, phone: o.customerPhone };
  if (o.address !== undefined) body.address = { line: o.address, ...(o.reference === undefined ? {} : { reference: o.reference }) };
  const optional: [keyof CreateOptions, string][] = [
    ['paymentMethod', 'payment_method'],
    ['customerTotal', 'customer_total'],
    ['customerFee', 'customer_fee'],
    ['courierFee', 'courier_fee'],
    ['transferReceived', 'transfer_received'],
    ['notes', 'notes'],
  ];
  for (const [flag, field] of optional) if (o[flag] !== undefined) body[field] = o[flag];
  return body as CreateBody;
}

/** POST /entregas (Idempotency-Key added by the client). */
export async function entregasCreateAction(options: CreateOptions, command: Command): Promise<void> {
  const body = createBody(options);
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().entregas.create(body), printEntrega);
}
