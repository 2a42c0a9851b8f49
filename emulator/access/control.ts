import type { FastifyInstance } from 'fastify';
import { ACCESS_LIMITS, accessRequestApprove, accessRequestCreate, accessRequestDeny, accessRequestListQuery } from '../../src/contract/access-requests.js';
import { ApiError } from '../../src/contract/errors.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { Emulator } from '../emulator.js';
import { controlBody } from '../http/control-body.js';
import { readAccessRequest } from './claim.js';
import { claimSecretOf } from './claim-secret.js';
import { approveAccessRequest, denyAccessRequest } from './decide.js';
import { accessRequestView } from './present.js';
import { ACCESS_ENVIRONMENT, submitAccessRequest } from './submit.js';

type IdParams = { Params: { id: string } };

/** The integrator's routes: no token (the claim secret is theirs), each bounded in size. */
const INTEGRATOR = { config: { tokenless: true }, bodyLimit: ACCESS_LIMITS.bodyBytes };

/**
 * DESIGN: the access requests' control routes. The integrator's two (make one, follow it with its
 * claim secret) answer 404 unless the emulator was started with `--access-requests open`; the
 * operator's (list, approve, deny) need the admin token and work whether requests are open or not, so
 * that closing the door does not strand the requests already made.
 */
export function accessControl(app: FastifyInstance, emulator: Emulator): void {
  const open = () => {
    if (!emulator.options.accessRequests) throw ApiError.of('not_found');
  };

  app.post('/access-requests', INTEGRATOR, async (request, reply) => {
    open();
    const input = controlBody(accessRequestCreate, request.body);
    reply.code(201);
    return { data: await submitAccessRequest(emulator, input, request.ip) };
  });

  app.get<IdParams>('/access-requests/:id', INTEGRATOR, async (request) => {
    open();
    return { data: await readAccessRequest(emulator, request.params.id, claimSecretOf(request.headers.authorization), request.ip) };
  });

  app.get('/access-requests', async (request) => {
    const query = parseOrThrow(accessRequestListQuery, request.query);
    const list = await emulator.env(ACCESS_ENVIRONMENT).store.accessRequests.list(query.status ?? null, query.limit);
    return { data: list.map(accessRequestView) };
  });

  app.post<IdParams>('/access-requests/:id/approve', async (request) => {
    controlBody(accessRequestApprove, request.body);
    return { data: await approveAccessRequest(emulator, request.params.id) };
  });

  app.post<IdParams>('/access-requests/:id/deny', async (request) => {
    const { reason } = controlBody(accessRequestDeny, request.body);
    return { data: await denyAccessRequest(emulator, request.params.id, reason) };
  });
}
