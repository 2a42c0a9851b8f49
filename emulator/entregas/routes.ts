import type { FastifyInstance } from 'fastify';
import * as api from '../../src/contract/webhooks-endpoints.js';
import { entregaActionAnyBody } from '../../src/contract/entregas.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import { createEntrega } from './create.js';
import { applyEntregaAction, entregaOfStore } from './actions.js';
import { presentEntrega } from './present.js';

// spec: Endpoints — independent deliveries; only the credential's own store's deliveries.
export function entregasRoutes(app: FastifyInstance, emulator: Emulator): void {
  // The tracking link is built from the emulator's own address, never from the client's Host header.
  const origin = () => emulator.publicUrl;
  apiRoute(app, emulator, api.createEntrega, async ({ env, auth, body }) => {
    const { entrega, created } = await createEntrega(env, auth.store.id, auth.integration.id, body);
    return ok(presentEntrega(entrega, origin()), created ? 201 : 200);
  });

  apiRoute(app, emulator, api.getEntrega, async ({ env, auth, params }) =>
    ok(presentEntrega(await entregaOfStore(env.store, auth.store.id, params.id), origin())),
  );

  // The row's body is the union of the actions' bodies; each action's own schema checks it here.
  const actionRow = { ...api.entregaActionEndpoint, body: entregaActionAnyBody };
  apiRoute(app, emulator, actionRow, async ({ env, auth, params, body }) =>
    ok(presentEntrega(await applyEntregaAction(env, auth.store.id, params.id, params.action, body), origin())),
  );
}
