import Fastify, { type FastifyInstance } from 'fastify';
import { ApiError } from '../src/contract/errors.js';
import { LIMITS } from '../src/contract/limits.js';
import { resolveOptions, type Emulator, type EmulatorOptions } from './emulator.js';
import { openEmulator } from './open.js';
import { registerBodyParsers } from './http/body.js';
import { envPlugin } from './api/env-plugin.js';
import { sendError, toApiError } from './http/reply.js';
import { IdFactory } from '../src/contract/ids.js';
import { redactError, redactKnownSecret, redactSecrets } from '../src/logging/redact.js';
import { controlPlugin } from './control/index.js';
import { accessPagePlugin } from './access/form.js';
import { SERVICES } from './services.js';
import { API_ROUTES, CONTROL_ROUTES } from './routes.js';
import { keepErrorCode, registerHomologation } from './homologation/hooks.js';
import { createHostPolicy } from './http/host-check.js';
import { answerClientError } from './http/client-error.js';
import { isPromise } from './store/maybe.js';
import { isStorageUnavailable } from './store/errors.js';
import { removeDotSegments } from './http/dot-segments.js';
import { headWithEveryGet } from './http/head.js';
import { clientTarget, restoreTarget, routingTarget } from './api/base-path.js';
import { BASE_PATHS } from '../src/contract/base-paths.js';
import { recordRequests } from './http/request-log.js';
import { serverTimeouts } from '../src/server/timeouts.js';
import { readRestOfBody } from '../src/server/drain.js';
import { NO_JSON_SCHEMAS } from './json-schemas.js';

/** The request log hook's `done` when another hook calls it: the caller goes on by itself. */
const NO_NEXT = () => {};

/** The methods of the API and the control API (HEAD comes with every GET); any other is an unknown route. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

export interface BuiltEmulator {
  app: FastifyInstance;
  emulator: Emulator;
}

/** The emulator's fastify app, built but not listening (tests may `inject` or `listen({port: 0})`). */
export async function buildEmulator(options: EmulatorOptions = {}): Promise<BuiltEmulator> {
  const resolved = resolveOptions(options);
  const emulator = await openEmulator(resolved);
  // Request ids never draw from the seeded generator: a seeded run must not depend on how many calls it got.
  const requestIds = new IdFactory(() => emulator.clock.now());
  const hosts = createHostPolicy(resolved.host, resolved.allowedHosts);
  // The admin token is any text (no prefix redactSecrets knows): the log masks it wherever a client put it.
  const adminToken = resolved.adminToken;
  const mask = (text: string) => (adminToken === null ? text : redactKnownSecret(text, adminToken));
  const requestTimeout = resolved.requestTimeoutMs;
  const recordRequest = recordRequests(emulator);
  const app = Fastify({
    bodyLimit: LIMITS.bodyBytes,
    // A stalled or slow request (headers or body) is answered and closed once it is this late:
    // docs/emulator.md, Decisions. Node checks the deadlines every `connectionsCheckingInterval`.
    requestTimeout,
    http: serverTimeouts(requestTimeout),
    // request.ip is the client's behind a trusted balancer (--trust-proxy), else the peer's.
    trustProxy: resolved.trustProxy.length > 0 ? resolved.trustProxy : false,
    clientErrorHandler: (error, socket) => answerClientError(error, socket, () => requestIds.next('request')),
    logger: resolved.logger
      ? {
          level: 'info',
          redact: ['req.headers.authorization', 'req.headers["idempotency-key"]'],
          serializers: {
            err: (error) => {
              const safe = redactError(error);
              return { ...safe, message: mask(safe.message), stack: mask(safe.stack) };
            },
            // The path the client sent: the first line is written before the sandbox's is restored (api/base-path.ts).
            req: (req) => ({ method: req.method, url: mask(redactSecrets(clientTarget(req.raw))) }),
          },
          stream: resolved.logStream ?? process.stderr,
        }
      : false,
    schemaController: NO_JSON_SCHEMAS,
    genReqId: () => requestIds.next('request'),
    requestIdHeader: false,
    return503OnClosing: false,
    // HEAD is part of each GET route (http/head.ts), not a second route.
    exposeHeadRoutes: false,
    forceCloseConnections: true,
    // Long path parameters reach the route, whose contract answers 422 (fastify's default is a bare 414).
    routerOptions: { maxParamLength: 2048 },
    // Dot segments go before routing, hooks and logs see the path: every client gets one answer (dot-segments.ts).
    // A sandbox API path is routed as the live one: the API is registered once (api/base-path.ts).
    rewriteUrl: (req) => routingTarget(req, removeDotSegments(req.url ?? '/')),
    // A path that is not valid percent-encoding names no resource: 404 in the spec's body, not fastify's 400.
    // fastify runs no hook for its own errors: the Host check and the request log happen here too.
    frameworkErrors: (_error, request, reply) => {
      restoreTarget(request.raw);
      reply.header('X-Request-Id', request.id);
      const error = ApiError.of(hosts.hostAllowed(request.headers.host) ? 'not_found' : 'host_not_allowed');
      sendError(request, reply, error);
      recordRequest(request, reply, JSON.stringify(error.toBody(request.id)), NO_NEXT);
    },
  });
  headWithEveryGet(app);
  app.decorateRequest('env', null);
  app.decorateRequest('auth', null);
  app.decorateRequest('prefetch', null);
  registerBodyParsers(app);

  // A callback hook: an async one costs a promise and a turn of the queue on every request.
  // The Host check runs first, on every route (DESIGN, Safety of a local dev server).
  app.addHook('onRequest', (request, reply, done) => {
    // Routed, the request gets back the path it came with: every hook and route sees it (api/base-path.ts).
    restoreTarget(request.raw);
    reply.header('X-Request-Id', request.id);
    if (!hosts.hostAllowed(request.headers.host)) return sendError(request, reply, ApiError.of('host_not_allowed'));
    // DESIGN: a method the API does not have is an unknown route (before any body is read).
    if (!KNOWN_METHODS.has(request.method)) return sendError(request, reply, ApiError.of('not_found'));
    // A shared sandbox: what other processes did (a clock moved, a reset) is in effect before this
    // request runs. One process on SQLite answers at once. An API route on a server database reads
    // it with the rest of its admission, in one statement (api/env-plugin.ts).
    if (request.routeOptions.config?.admitted) return done();
    const synced = emulator.sync();
    if (isPromise(synced)) synced.then(() => done(), (error: Error) => done(error));
    else done();
  });
  app.setErrorHandler(async (error, request, reply) => {
    // The database of a shared sandbox is away: try again shortly (spec: 503 maintenance, Retry-After).
    if (isStorageUnavailable(error)) return sendError(request, reply, ApiError.of('maintenance').withHeaders({ 'Retry-After': '5' }));
    const apiError = toApiError(error);
    if (apiError.code === 'internal_error' && !(error instanceof ApiError)) request.log.error({ err: error }, 'unexpected error');
    // A body refused before it was read (over 5 MB): the rest is read first, so that a client still
    // writing it reads this answer instead of a reset (DESIGN; src/server/drain.ts).
    if (apiError.code === 'payload_too_large') await readRestOfBody(request.raw);
    return sendError(request, reply, apiError);
  });
  app.setNotFoundHandler((request, reply) => sendError(request, reply, ApiError.of('not_found')));

  // The request log (`emulator logs tail`): every API request of both environments, answered ones included
  // when a fault or the credential check answered before the route. The homologation observer's note
  // of the answer goes in the same hook, after the log's entry as when they were two hooks: one onSend
  // for both records (a hook costs every request).
  app.addHook('onSend', (request, reply, payload, done) => {
    recordRequest(request, reply, payload, NO_NEXT);
    keepErrorCode(request, reply, payload);
    done(null, payload);
  });
  // The emulator's root is the merchant panel's address, for people who open the bare URL in a browser.
  app.get('/', (_request, reply) => reply.redirect('/_emulator/panel', 302));

  // Homologation observer (emulator/homologation): records every API call per integration; before the API routes so its hooks apply to them.
  registerHomologation(app, emulator);
  // The API of both environments, registered once: a sandbox request is routed under the live base path.
  await app.register(envPlugin(emulator, API_ROUTES), { prefix: BASE_PATHS.live });
  await app.register(controlPlugin(emulator, hosts, CONTROL_ROUTES), { prefix: '/_emulator' });
  // The integrators' request form (DESIGN: GET /access), its own body parser and guards.
  await app.register(accessPagePlugin(emulator, hosts));
  try {
    for (const start of SERVICES) await start(emulator);
  } catch (error) {
    await emulator.close();
    throw error;
  }
  app.addHook('onClose', async () => emulator.close());
  return { app, emulator };
}
