import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as api from '../../src/contract/webhooks-endpoints.js';
import { entregaActionAnyBody } from '../../src/contract/entregas.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import { createEntrega } from '../entregas/create.js';
import { applyEntregaAction, entregaOfStore } from '../entregas/actions.js';
import { presentEntrega } from '../entregas/present.js';

const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

// spec: Endpoints — independent deliveries; only the credential's own store's deliveries.
export function entregasRoutes(app: FastifyInstance, env: EnvContext, emulator: Emulator): void {
  apiRoute(app, env, emulator, api.createEntrega, ({ auth, body, request }) => {
    const { entrega, created } = createEntrega(env, auth.store.id, auth.integration.id, body);
    return ok(presentEntrega(entrega, origin(request)), created ? 201 : 200);
  });

  apiRoute(app, env, emulator, api.getEntrega, ({ auth, params, request }) =>
    ok(presentEntrega(entregaOfStore(env, auth.store.id, params.id), origin(request))),
  );

  // The row's body is the union of the actions' bodies; each action's own schema checks it here.
  const actionRow = { ...api.entregaActionEndpoint, body: entregaActionAnyBody };
  apiRoute(app, env, emulator, actionRow, ({ auth, params, body, request }) =>
    ok(presentEntrega(applyEntregaAction(env, auth.store.id, params.id, params.action, body), origin(request))),
  );
}
