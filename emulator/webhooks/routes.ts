import type { FastifyInstance } from 'fastify';
import * as api from '../../src/contract/webhooks-endpoints.js';
import { ApiError } from '../../src/contract/errors.js';
import { LIMITS } from '../../src/contract/limits.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import { rotateSecret, setWebhook } from './config.js';
import { presentDelivery, presentWebhook } from './present.js';
import { webhookService } from './background.js';

// spec: Endpoints — GET/PUT /webhook, rotate-secret, test, deliveries, retry.
export function webhooksRoutes(app: FastifyInstance, emulator: Emulator): void {
  apiRoute(app, emulator, api.getWebhook, async ({ env, auth }) => {
    const webhook = await env.store.webhooks.get(auth.integration.id);
    if (!webhook) throw ApiError.of('not_found');
    return ok(presentWebhook(webhook));
  });

  apiRoute(app, emulator, api.putWebhook, async ({ env, auth, body }) => {
    const { webhook, created } = await setWebhook(env, auth.integration.id, body);
    // Reactivation resumes held deliveries.
    webhookService(emulator).of(env).kick();
    return ok(presentWebhook(webhook, created), created ? 201 : 200);
  });

  apiRoute(app, emulator, api.rotateWebhookSecret, async ({ env, auth }) => {
    const webhook = await rotateSecret(env, auth.integration.id);
    return ok({ signing_secret: webhook.secret, previous_valid_hours: LIMITS.webhookSecretOverlapHours });
  });

  // spec: POST /webhook/test — a `webhook.test` event for this integration only; `queued` says
  // whether a delivery was created (false while the webhook is paused or inactive).
  apiRoute(app, emulator, api.testWebhook, async ({ env, auth }) => {
    const store = env.store;
    const webhook = await store.webhooks.get(auth.integration.id);
    if (!webhook) throw ApiError.of('not_found');
    const queued = await store.tx(async (tx) => {
      const [event] = await tx.emit('webhook.test', auth.store.id, { test: true, message: 'Evento de prueba del webhook.' }, auth.integration.id);
      return (await tx.webhooks.list(auth.integration.id, null, 1))[0]?.eventId === event!.id;
    });
    return ok({ queued }, 202);
  });

  apiRoute(app, emulator, api.listWebhookDeliveries, async ({ env, auth, query }) => {
    const store = env.store;
    const rows = await store.webhooks.list(auth.integration.id, query.status ?? null, query.limit);
    const data = [];
    for (const d of rows) data.push(await presentDelivery(store.webhooks, d));
    return { status: 200, body: { data } };
  });

  apiRoute(app, emulator, api.retryWebhookDelivery, async ({ env, auth, params }) => {
    const row = await webhookService(emulator).of(env).retryNow(auth.integration.id, params.delivery_id);
    return ok(await presentDelivery(env.store.webhooks, row));
  });
}
