import type { FastifyInstance } from 'fastify';
import { controlLogsQuery, type RequestLogPage } from '../../src/contract/control.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { Emulator } from '../emulator.js';
import { requestLogOf } from '../http/request-log.js';
import { accessOf, FILTERED } from '../http/control-access.js';

/**
 * GET /_emulator/logs — the request log (`emulator logs tail`). With `wait_ms`, a page that found
 * nothing waits (real time) for a matching request before answering, so a follower sees each request
 * as it is answered without polling in a loop.
 */
export function logsControl(app: FastifyInstance, emulator: Emulator): void {
  const log = requestLogOf(emulator);
  app.get('/logs', FILTERED, async (request, reply) => {
    const query = parseOrThrow(controlLogsQuery, request.query);
    // A store token reads its own store's requests only (DESIGN: team sandbox).
    const access = accessOf(request);
    const only = access.role === 'store' ? { storeId: access.storeId, environment: access.environment } : null;
    let page = log.read(query, only);
    if (query.tail !== undefined || query.wait_ms === 0) return { data: page };
    const deadline = performance.now() + query.wait_ms;
    let gone = false;
    reply.raw.once('close', () => (gone = true));
    let missed = page.missed;
    while (page.entries.length === 0 && !gone && !log.closed) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      await log.waitForNewer(page.next_after, left, (stop) => reply.raw.once('close', stop));
      page = log.read({ ...query, after: page.next_after }, only);
      missed += page.missed;
    }
    return { data: { ...page, missed } satisfies RequestLogPage };
  });
}
