import type { FastifyInstance } from 'fastify';
import * as api from '../../src/contract/endpoints.js';
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import type { AuthContext } from '../http/auth.js';
import { JsonText } from '../http/json-text.js';
import { presentMe, presentStore } from './present.js';
import { changeStore } from './change-store.js';

// The body as JSON text per authentication: the records come frozen from the auth cache, which a
// write to their rows renews (see auth-cache.ts), and the body reads nothing else, so the same
// records always present the same body.
const bodies = new WeakMap<AuthContext, JsonText>();

/** spec: Endpoints — GET /me, GET and PATCH /store (each handler in the request's environment). */
export function storesRoutes(app: FastifyInstance, emulator: Emulator): void {
  // GET /me never answers 403 (DESIGN): a suspended integration reads its status here.
  apiRoute(app, emulator, api.getMe, ({ env, auth }) => {
    let body = bodies.get(auth);
    if (!body) {
      body = new JsonText(JSON.stringify(ok(presentMe(env, auth.integration, auth.store, auth.credential)).body));
      if (Object.isFrozen(auth)) bodies.set(auth, body);
    }
    return { body };
  });

  apiRoute(app, emulator, api.getStore, async ({ env, auth }) => {
    const stores = env.store.stores;
    return ok(await presentStore(stores, (await stores.byId(auth.store.id))!));
  });

  // spec: Endpoints, PATCH /store — 422 when the store cannot open (no active product).
  apiRoute(app, emulator, api.patchStore, async ({ env, auth, body }) => {
    const stores = env.store.stores;
    if (body.accepting_orders && !(await stores.hasActiveProduct(auth.store.id))) {
      throw ApiError.validation(
        [{ field: 'accepting_orders', code: 'store_cannot_open', message: 'El comercio no puede abrir: no tiene productos activos.' }],
        'El comercio no cumple los requisitos para recibir pedidos.',
      );
    }
    const store = await changeStore(env, auth.store.id, { switchOn: body.accepting_orders });
    return ok(await presentStore(stores, store));
  });
}
