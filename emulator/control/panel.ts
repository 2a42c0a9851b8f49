import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../../src/contract/errors.js';
import type { Emulator } from '../emulator.js';
import { presentOrder } from '../orders/present.js';
import { presentDelivery } from '../webhooks/present.js';
import { panelBus, type PanelChange } from '../panel/bus.js';
import { accessOf, FILTERED, integrationParam, resolvedEnvironment, storeParam, type ControlAccess } from '../http/control-access.js';

type IdParams = { Params: Record<string, string>; Querystring: Record<string, string | undefined> };

/**
 * The page and its assets carry no data, so they are served without the admin token (a browser
 * cannot send a Bearer header when it opens a page); everything the page shows comes from routes
 * that need it. The control plugin's token check reads this flag.
 */
const PUBLIC_PAGE = { panelPublic: true };

const CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

function secureHeaders(reply: FastifyReply, type: string): FastifyReply {
  return reply
    .header('content-type', type)
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store');
}

function boundedLimit(value: string | undefined, fallback: number, max: number): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw ApiError.of('validation_failed', [{ field: 'limit', code: 'invalid', message: `Debe ser un entero de 1 a ${max}.` }]);
  }
  return n;
}

const NO_STORE = 'No existe ese comercio.';

/**
 * A store token's stream tells of its own store only (in its own environment: the one its
 * authorization resolved), and of what concerns every store (the clock, a reset).
 */
function visibleTo(access: ControlAccess, change: PanelChange): boolean {
  if (access.role === 'admin' || change.store_id === null) return true;
  return change.store_id === access.storeId && (change.environment === null || change.environment === access.environment);
}

// The page, its script and styles load with their first request: an emulator start (hundreds per test
// run, most never opened in a browser) does not compile them (bench/emulator-start.mjs).
const page = () => import('../panel/page.js');
const script = () => import('../panel/script.js');
const styles = () => import('../panel/styles.js');

/** DESIGN: GET /_emulator/panel — the merchant panel page, its script and styles, its live stream and reads. */
export function panelControl(app: FastifyInstance, emulator: Emulator): void {
  const bus = panelBus(emulator);
  // Open streams end with the emulator (fastify's forceCloseConnections cuts their sockets too).
  const streams = new Set<() => void>();
  emulator.onClose(() => streams.forEach((end) => end()));

  app.get('/panel', { config: PUBLIC_PAGE }, async (_request, reply) =>
    secureHeaders(reply, 'text/html; charset=utf-8').send((await page()).panelPage()));
  app.get('/panel/app.js', { config: PUBLIC_PAGE }, async (_request, reply) =>
    secureHeaders(reply, 'text/javascript; charset=utf-8').send((await script()).PANEL_SCRIPT));
  app.get('/panel/app.css', { config: PUBLIC_PAGE }, async (_request, reply) =>
    secureHeaders(reply, 'text/css; charset=utf-8').send((await styles()).PANEL_STYLES));
  app.get('/panel/favicon.svg', { config: PUBLIC_PAGE }, async (_request, reply) =>
    secureHeaders(reply, 'image/svg+xml').send((await styles()).PANEL_ICON));

  // Server-Sent Events: one `change` message per store and turn of the event loop, a comment every 15 s.
  app.get('/panel/events', FILTERED, (request, reply) => {
    const access = accessOf(request);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-request-id': request.id,
      'x-content-type-options': 'nosniff',
    });
    res.write('retry: 1000\nevent: hello\ndata: {}\n\n');
    const unsubscribe = bus.subscribe((change) => {
      if (visibleTo(access, change)) res.write(`event: change\ndata: ${JSON.stringify(change)}\n\n`);
    });
    const beat = setInterval(() => res.write(': beat\n\n'), 15_000);
    const end = () => {
      unsubscribe();
      clearInterval(beat);
      streams.delete(end);
      res.end();
    };
    streams.add(end);
    request.raw.on('close', end);
  });

  // The board: the newest orders of a store with their items, as the API presents them.
  app.get<IdParams>('/panel/stores/:store_id/orders', storeParam(NO_STORE), async (request) => {
    const storeId = request.params.store_id;
    const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.stores.byId(storeId!));
    if (!env) throw ApiError.of('not_found', undefined, NO_STORE);
    const limit = boundedLimit(request.query.limit, 100, 500);
    const repository = env.store.orders;
    const orders = await repository.list({
      storeId: storeId!, afterNumber: Math.max(0, (await repository.lastNumber(storeId!)) - limit), limit,
      statuses: null, ackStatus: null, createdSince: null, updatedSince: null,
    });
    const data = [];
    for (const o of orders) data.push(await presentOrder(repository, o));
    return { data };
  });

  // Deliveries of an integration's webhook with their attempts, newest first.
  app.get<IdParams>('/panel/integrations/:integration_id/deliveries', integrationParam(), async (request) => {
    const id = request.params.integration_id;
    const env = await emulator.envOf(resolvedEnvironment(request), (e) => e.store.integrations.byId(id!));
    if (!env) throw ApiError.of('not_found');
    const limit = boundedLimit(request.query.limit, 50, 200);
    const data = [];
    for (const d of await env.store.webhooks.list(id!, null, limit)) data.push(await presentDelivery(env.store.webhooks, d));
    return { data };
  });
}
