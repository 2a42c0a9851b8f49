import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';
import { ApiError } from '../../src/contract/errors.js';
import { webhookChaos, webhookPanelInput } from '../../src/contract/webhooks.js';
import { controlBody } from '../http/control-body.js';
import { setWebhook } from './config.js';
import { presentDelivery, presentWebhook } from './present.js';
import { webhookService } from './background.js';
import { integrationParam, ownedBy, resolvedEnvironment } from '../http/control-access.js';

/** A delivery's store, through its integration (a store token retries its own deliveries only). */
const deliveryOwner = ownedBy(async (store, request) => {
  const delivery = await store.webhooks.delivery((request.params as { delivery_id: string }).delivery_id);
  return delivery && (await store.integrations.byId(delivery.integrationId))?.storeId;
});

type IdParams = { Params: Record<string, string> };

/** DESIGN: control rows for webhooks — drain and chaos (the sandbox's: the admin's), the panel's webhook and resend. */
export function webhooksControl(app: FastifyInstance, emulator: Emulator): void {
  // Returns once every delivery due now has been attempted.
  app.post('/webhooks/drain', async () => ({ data: await webhookService(emulator).drain() }));

  app.get('/webhooks/chaos', async () => ({ data: await webhookService(emulator).refreshChaos() }));
  app.post('/webhooks/chaos', async (request) => {
    const chaos = controlBody(webhookChaos, request.body);
    await webhookService(emulator).setChaos(chaos);
    return { data: chaos };
  });
  app.delete('/webhooks/chaos', async () => {
    await webhookService(emulator).setChaos(null);
    return { data: webhookService(emulator).chaos };
  });

  // The panel sets the webhook (201 with the secret when it creates it) or reactivates it (`active: true`).
  app.put<IdParams>('/integrations/:integration_id/webhook', integrationParam(), async (request, reply) => {
    const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.integrations.byId(request.params.integration_id!));
    if (!env) throw ApiError.of('not_found');
    const input = controlBody(webhookPanelInput, request.body);
    const { webhook, created } = await setWebhook(env, request.params.integration_id!, input);
    webhookService(emulator).of(env).kick();
    reply.code(created ? 201 : 200);
    return { data: presentWebhook(webhook, created) };
  });

  app.post<IdParams>('/deliveries/:delivery_id/retry', deliveryOwner, async (request) => {
    const id = request.params.delivery_id!;
    const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.webhooks.delivery(id));
    if (!env) throw ApiError.of('not_found');
    const row = await webhookService(emulator).of(env).retryNow('*', id);
    return { data: await presentDelivery(env.store.webhooks, row) };
  });
}
