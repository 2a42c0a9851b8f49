import type { FastifyInstance } from 'fastify';
import * as api from '../../src/contract/endpoints.js';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import { presentStore } from '../stores/present.js';
import { changeStore } from '../stores/change-store.js';

export function storeRoutes(app: FastifyInstance, env: EnvContext, emulator: Emulator): void {
  apiRoute(app, env, emulator, api.getStore, ({ auth }) => ok(presentStore(env, env.stores.byId(auth.store.id)!)));

  // spec: Endpoints, PATCH /store — 422 when the store cannot open (no active product).
  apiRoute(app, env, emulator, api.patchStore, ({ auth, body }) => {
    if (body.accepting_orders && !env.stores.hasActiveProduct(auth.store.id)) {
      throw ApiError.validation(
        [{ field: 'accepting_orders', code: 'store_cannot_open', message: 'El comercio no puede abrir: no tiene productos activos.' }],
        'El comercio no cumple los requisitos para recibir pedidos.',
      );
    }
    const store = changeStore(env, auth.store.id, { switchOn: body.accepting_orders });
    return ok(presentStore(env, store));
  });
}
