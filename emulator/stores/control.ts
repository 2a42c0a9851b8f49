import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Emulator } from '../emulator.js';
import type { EnvContext } from '../context.js';
import { ApiError } from '../../src/contract/errors.js';
import {
  controlCredentialRotate,
  controlIntegrationPatch,
  controlStoreCreate,
  controlStorePatch,
} from '../../src/contract/control.js';
import { provisionStore } from './provision.js';
import { changeStore, type StoreChange } from './change-store.js';
import { changeIntegration } from './change-integration.js';
import { rotateCredential } from './rotate.js';
import { formatNullableDate } from '../../src/contract/dates.js';
import { controlBody } from '../http/control-body.js';
import { integrationView, storeView } from './present.js';
import { integrationParam, resolvedEnvironment, storeParam } from '../http/control-access.js';
import { issueStoreToken, newStoreToken } from './store-token.js';

type IdParams = { Params: Record<string, string> };

/** The environment holding a store: the token's own, or either for the admin; 404 when none has it. */
async function storeEnv(emulator: Emulator, request: FastifyRequest, storeId: string): Promise<EnvContext> {
  const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.stores.byId(storeId));
  if (!env) throw ApiError.of('not_found');
  return env;
}

async function integrationEnv(emulator: Emulator, request: FastifyRequest, integrationId: string): Promise<EnvContext> {
  const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.integrations.byId(integrationId));
  if (!env) throw ApiError.of('not_found');
  return env;
}

/**
 * DESIGN: control API — stores, integrations and credentials, as the merchant panel makes them. A
 * store token changes its own store and integrations; making stores and their tokens is the admin's.
 */
export function storesControl(app: FastifyInstance, emulator: Emulator): void {
  app.post('/stores', async (request, reply) => {
    const input = controlBody(controlStoreCreate, request.body);
    const env = emulator.env(input.environment);
    // DESIGN: the store's token is made with it and shown here once (the storage keeps its digest).
    const token = newStoreToken();
    const made = await provisionStore(env, { name: input.name, slug: input.slug, scopes: input.scopes, settings: input.settings, tokenDigest: token.digest });
    reply.code(201);
    return {
      data: {
        store: await storeView(env, (await env.store.stores.byId(made.storeId))!),
        integration: await integrationView(env, (await env.store.integrations.byId(made.integrationId))!),
        credential: made.credential.full,
        store_token: token.token,
      },
    };
  });

  // A new token for the store, shown once; the one it had stops at once (a leaked token, a new integrator).
  app.post<IdParams>('/stores/:store_id/token', async (request, reply) => {
    const env = await storeEnv(emulator, request, request.params.store_id!);
    reply.code(201);
    return { data: await issueStoreToken(env, request.params.store_id!) };
  });

  // The store's token stops; the store is then reached with the admin token only.
  app.delete<IdParams>('/stores/:store_id/token', async (request) => {
    const env = await storeEnv(emulator, request, request.params.store_id!);
    return { data: { store_id: request.params.store_id!, revoked: await env.store.stores.dropToken(request.params.store_id!) } };
  });

  app.patch<IdParams>('/stores/:store_id', storeParam(), async (request) => {
    const env = await storeEnv(emulator, request, request.params.store_id!);
    const input = controlBody(controlStorePatch, request.body);
    const change: StoreChange = {};
    // The panel moves the merchant's switch; `accepting_orders` still reads false without an active product.
    if (input.accepting_orders !== undefined) change.switchOn = input.accepting_orders;
    if (input.suspended !== undefined) change.suspended = input.suspended;
    if (input.payment_methods !== undefined) change.paymentMethods = input.payment_methods;
    if (input.fulfillment_types !== undefined) change.fulfillmentTypes = input.fulfillment_types;
    const store = await changeStore(env, request.params.store_id!, change);
    return { data: await storeView(env, store) };
  });

  app.patch<IdParams>('/integrations/:integration_id', integrationParam(), async (request) => {
    const env = await integrationEnv(emulator, request, request.params.integration_id!);
    const input = controlBody(controlIntegrationPatch, request.body);
    const integration = await changeIntegration(env, request.params.integration_id!, input);
    return { data: await integrationView(env, integration) };
  });

  app.post<IdParams>('/integrations/:integration_id/credentials', integrationParam(), async (request, reply) => {
    const env = await integrationEnv(emulator, request, request.params.integration_id!);
    const { overlap_hours } = controlBody(controlCredentialRotate, request.body);
    reply.code(201);
    return { data: await rotateCredential(env, request.params.integration_id!, overlap_hours) };
  });

  app.delete<IdParams>('/integrations/:integration_id/credentials/:key_id', integrationParam(), async (request) => {
    const { integration_id, key_id } = request.params as { integration_id: string; key_id: string };
    const env = await integrationEnv(emulator, request, integration_id);
    const credential = await env.store.credentials.byKey(key_id);
    if (!credential || credential.integrationId !== integration_id) throw ApiError.of('not_found');
    // Revoking twice keeps the first time: DELETE is safe to repeat.
    await env.store.credentials.revoke(key_id, integration_id, env.clock.now());
    const revoked = (await env.store.credentials.byKey(key_id))!;
    return { data: { integration_id, key_id, revoked_at: formatNullableDate(revoked.revokedAt) } };
  });
}
