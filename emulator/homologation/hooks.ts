import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import { sendError } from '../http/reply.js';
import { bodyDigest } from './recorder.js';
import { arrivalOf, stampArrivals } from './arrival.js';
import { batchAnswerFacts, batchOpsOf, factsOf, type BatchOp } from './facts.js';
import type { Facts, RecordedCall } from '../../src/contract/observation.js';
import { isPromise } from '../store/maybe.js';
import { homologationService, type HomologationService } from './observer-state.js';

/** What the pre-handler learnt of a request, for the response hook. */
interface Seen {
  path: string;
  digest: string | null;
  facts: Facts | null;
  injected: boolean;
  code: string | null;
  /** A batch's operations, until its answer tells which succeeded. */
  batchOps: BatchOp[] | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    homologation: Seen | null;
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The request's environment, by its base path (null: neither). */
function envOf(emulator: Emulator, url: string): EnvContext | null {
  const { test, live } = emulator.envs;
  return underBase(url, test.basePath) ? test : underBase(url, live.basePath) ? live : null;
}

const underBase = (url: string, base: string) => url.startsWith(base) && url.charCodeAt(base.length) === 47;

/** The path under the environment's base path, without the query. */
function pathUnder(env: EnvContext | null, url: string): string {
  const q = url.indexOf('?');
  return url.slice(env ? env.basePath.length : 0, q === -1 ? url.length : q);
}

/**
 * The homologation observer's hooks on the whole app (registered once from emulator/app.ts, before
 * the API routes so that they apply to them):
 * - preHandler (after authentication): reads the digest and the whitelisted facts of a write, and
 *   answers an observer-injected 503/429 to the integration's next idempotent write;
 * - onSend (keepErrorCode, called by the app's one onSend hook with the request log's record):
 *   keeps the error code of a non-2xx answer, and what a batch's answer says succeeded;
 * - onResponse: records the call in the integration's ring (control routes and unauthenticated
 *   calls have no integration and are not recorded).
 * Callback hooks with early returns: a GET costs a few property reads and one array push.
 */
export function registerHomologation(app: FastifyInstance, emulator: Emulator): void {
  const service = homologationService(emulator);
  // When each request's first bytes arrived, as closely as the event loop can tell (retry timing).
  stampArrivals(app.server);
  app.decorateRequest('homologation', null);
  app.addHook('preHandler', observeRequest(service, emulator));
  app.addHook('onResponse', recordCall(service));
}

/**
 * preHandler: what the recorder keeps of a request, and the session's injected fault for the next
 * idempotent write. A read (the hot path) only notes its path, with no promise.
 */
function observeRequest(service: HomologationService, emulator: Emulator) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const auth = request.auth;
    if (!auth || !service.recording) return done();
    const url = request.url;
    const env = envOf(emulator, url);
    const seen: Seen = { path: pathUnder(env, url), digest: null, facts: null, injected: false, code: null, batchOps: null };
    request.homologation = seen;
    if (!WRITES.has(request.method)) return done();
    observeWrite(service, env, seen.path, seen, request, reply).then(() => done(), (error: Error) => done(error));
  };
}

async function observeWrite(service: HomologationService, env: EnvContext | null, path: string, seen: Seen, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  seen.digest = bodyDigest(request.body);
  const previous = env && request.method === 'POST' && path.endsWith('/status') ? await currentStatus(env, path, request) : null;
  seen.facts = factsOf(request.method, path, request.body, previous);
  if (request.method === 'POST' && path === '/catalog/batch') seen.batchOps = batchOpsOf(request.body);
  const key = request.headers['idempotency-key'];
  if (key === undefined) return;
  const integrationId = request.auth!.integration.id;
  const session = service.sessions.get(integrationId);
  session?.writeArrived(String(key));
  const fault = await service.takeFault(integrationId);
  if (!fault) return;
  seen.injected = true;
  // The session's looks wait for this write's retry (its bytes are timed: arrival.ts).
  session?.faultAnswered(String(key), fault.retry_after);
  const error = fault.status === 503 ? ApiError.of('maintenance') : ApiError.of('rate_limited');
  error.withHeaders({ 'Retry-After': String(fault.retry_after) });
  // The report binds each fault to the call it answered (observe.ts: the injected calls, in order).
  throw error;
}

/** The order's status at the start of a GET /orders/{id} answer (its first `"status"` member is the order's own). */
const ORDER_STATUS = /"status":"([a-z_]+)"/;

/**
 * At onSend (the app's hook calls it): the spec's error code of a non-2xx answer; a 2xx batch's
 * per-operation results; the status a GET /orders/{id} showed (DESIGN: "told" that an order is
 * final includes the ERP's own read). Nothing for a request the observer did not see.
 */
export function keepErrorCode(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  const seen = request.homologation;
  if (!seen) return;
  if (request.method === 'GET' && reply.statusCode === 200 && seen.path.startsWith('/orders/') && seen.path.indexOf('/', 8) === -1 && typeof payload === 'string') {
    const status = ORDER_STATUS.exec(payload.slice(0, 400))?.[1];
    if (status) seen.facts = { status };
  }
  if (seen.batchOps && seen.facts && reply.statusCode < 300 && typeof payload === 'string') {
    Object.assign(seen.facts, batchAnswerFacts(seen.batchOps, payload));
    seen.batchOps = null;
  }
  if (reply.statusCode >= 400 && typeof payload === 'string') {
    try {
      seen.code = (JSON.parse(payload) as { error?: { code?: string } }).error?.code ?? null;
    } catch {
      seen.code = null;
    }
  }
}

/** onResponse: the call into its integration's ring, bound to the fault that answered it. */
function recordCall(service: HomologationService) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const seen = request.homologation;
    const auth = request.auth;
    if (!seen || !auth) return done();
    const key = request.headers['idempotency-key'];
    const integrationId = auth.integration.id;
    const arrival = arrivalOf(request.raw);
    const call: RecordedCall = {
      seq: 0,
      at: arrival.at,
      arrived_after: arrival.after,
      // onResponse runs when the response has finished: the answer was sent by now.
      answered_at: Date.now(),
      method: request.method,
      path: seen.path,
      status: reply.statusCode,
      code: seen.code,
      idempotency_key: typeof key === 'string' ? key : null,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      body_sha256: seen.digest,
      request_id: request.id,
      facts: seen.facts,
      injected: seen.injected,
    };
    // Kept in the background on a server database (batched): the report reads it moments later.
    const recorded = service.store.record(integrationId, call);
    if (isPromise(recorded)) recorded.catch(() => undefined);
    done();
  };
}

/**
 * The order's status before a status call runs (graded as the move's starting point): the one the
 * request's admission read with it on a server database (issue 25: no read of its own), else read.
 */
async function currentStatus(env: EnvContext, path: string, request: FastifyRequest): Promise<string | null> {
  const orderId = path.split('/')[2] ?? '';
  const prefetched = request.prefetch?.orderStatus;
  if (prefetched && prefetched.orderId === orderId) return prefetched.status;
  return (await env.store.orders.byId(orderId))?.status ?? null;
}
