import type { FastifyInstance } from 'fastify';
import * as api from '../../src/contract/endpoints.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { apiRoute, ok } from '../http/route.js';
import type { AuthContext } from '../http/auth.js';
import { JsonText } from '../http/json-text.js';
import { presentMe } from '../stores/present.js';

// The body as JSON text per authentication: the records come frozen from the auth cache, which a
// write to their rows renews (see auth-cache.ts), and the body reads nothing else, so the same
// records always present the same body.
const bodies = new WeakMap<AuthContext, JsonText>();

// spec: Endpoints, GET /me — never 403 (DESIGN): a suspended integration reads its status here.
export function meRoutes(app: FastifyInstance, env: EnvContext, emulator: Emulator): void {
  apiRoute(app, env, emulator, api.getMe, ({ auth }) => {
    let body = bodies.get(auth);
    if (!body) {
      body = new JsonText(JSON.stringify(ok(presentMe(env, auth.integration, auth.store, auth.credential)).body));
      if (Object.isFrozen(auth)) bodies.set(auth, body);
    }
    return { body };
  });
}
