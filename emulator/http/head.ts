import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

// HEAD beside every GET (DESIGN: HEAD comes with every GET), as one route: fastify's own HEAD routes
// (`exposeHeadRoutes`) are a second route per GET, and a route is what an emulator start pays for
// most (issue 27: 37 of the 122 routes left, a third of their registration). A GET route here takes
// HEAD too, and its answer to a HEAD is what fastify's HEAD route answers: the GET's headers, the
// length of the body it would have sent, no body (fastify/lib/head-route.js, which this mirrors).

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => void;

/** A HEAD request's answer: the body's length, without the body (a stream is drained or cancelled). */
const answerHead: OnSend = (request, reply, payload, done) => {
  if (request.method !== 'HEAD') return done(null, payload);
  if (payload === undefined || payload === null) {
    reply.header('content-length', '0');
    return done(null, null);
  }
  const stream = payload as { resume?: () => void; on?: (event: string, listener: (error: Error) => void) => void; getReader?: unknown; cancel?: (reason: string) => Promise<void> };
  if (typeof stream.resume === 'function') {
    stream.on!('error', (err) => reply.log.error({ err }, 'Error on Stream found for HEAD route'));
    stream.resume();
    return done(null, null);
  }
  if (typeof stream.getReader === 'function') {
    stream.cancel!('Stream cancelled by HEAD route').catch((err: Error) => reply.log.error({ err }, 'Error on Stream found for HEAD route'));
    return done(null, null);
  }
  reply.header('content-length', String(Buffer.byteLength(payload as string | Buffer)));
  done(null, null);
};

/**
 * Every GET route registered after this (the app's own and its plugins') answers HEAD as well. The
 * app is made with `exposeHeadRoutes: false`: no second route.
 */
export function headWithEveryGet(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.method !== 'GET') return;
    route.method = ['GET', 'HEAD'];
    // After the route's own onSend hooks, as fastify's HEAD route puts it.
    const own = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...own, answerHead] as RouteOptions['onSend'];
  });
}
