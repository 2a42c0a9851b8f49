import { gunzipSync, gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import type { TestEmulator } from './emulator.js';
import { seedMenu, simulate, key } from './orders.js';

/** The bundle's JSON text. */
export const bundleText = (bytes: Buffer) => gunzipSync(bytes).toString('utf8');

/** Rewrites a bundle's envelope (and, unless told otherwise, recomputes its checksum). */
export function rewriteBundle(bytes: Buffer, edit: (envelope: any) => void, rehash = true): Buffer {
  const envelope = JSON.parse(bundleText(bytes));
  edit(envelope);
  const { payload, ...header } = envelope;
  const body = JSON.stringify(payload);
  if (rehash) header.sha256 = createHash('sha256').update(body).digest('hex');
  return gzipSync(`${JSON.stringify(header).slice(0, -1)},"payload":${body}}`);
}

export interface StateFixture {
  orderIds: string[];
  ackKey: string;
  ackBody: { external_id: string };
  ackResponse: any;
}

/**
 * A sandbox store with a catalog, orders in several states, an acknowledged order (its
 * Idempotency-Key stored), a webhook whose deliveries failed with attempts, and a rotated secret.
 */
export async function buildState(emu: TestEmulator, deadWebhookUrl: string): Promise<StateFixture> {
  await seedMenu(emu);
  const put = await emu.api('PUT', '/webhook', { body: { url: deadWebhookUrl, events: ['*'] } });
  if (put.status !== 201) throw new Error(`PUT /webhook answered ${put.status}: ${JSON.stringify(put.body)}`);
  const rotate = await emu.api('POST', '/webhook/rotate-secret', { idempotencyKey: key() });
  if (rotate.status !== 200) throw new Error(`rotate-secret answered ${rotate.status}`);
  const orderIds: string[] = [];
  for (const scenario of ['delivery', 'pickup_invoice', 'unmapped_product']) orderIds.push((await simulate(emu, { scenario })).id);
  await emu.control('POST', `/orders/${orderIds[1]}/status`, { status: 'accepted', estimated_minutes: 20, by: 'store_user' });
  const ackKey = key();
  const ackBody = { external_id: 'ERP-1001' };
  const ack = await emu.api('POST', `/orders/${orderIds[0]}/ack`, { body: ackBody, idempotencyKey: ackKey });
  if (ack.status !== 200) throw new Error(`ack answered ${ack.status}`);
  await emu.control('POST', '/webhooks/drain');
  await emu.control('POST', '/clock/advance', { seconds: 2 * 86400 });
  await emu.control('POST', '/webhooks/drain');
  return { orderIds, ackKey, ackBody, ackResponse: ack.body };
}
