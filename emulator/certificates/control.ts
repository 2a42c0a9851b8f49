import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../src/contract/errors.js';
import { formatDate } from '../../src/contract/dates.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { Emulator } from '../emulator.js';
import { controlBody } from '../http/control-body.js';
import { keySet, newSigningKey } from './keys.js';
import { certificateView } from './present.js';

type IdParams = { Params: { id: string } };

/** Read by anyone who verifies a certificate: no token. */
const PUBLIC = { config: { tokenless: true } };

const listQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) });
const noFields = z.strictObject({});

/**
 * DESIGN: the certificates' control routes — the public keys (a JWKS, served as the document itself
 * so that any JOSE library reads it) and the revocations, for anyone; the ledger, revocation and key
 * rotation, for the admin token.
 */
export function certificatesControl(app: FastifyInstance, emulator: Emulator): void {
  const ledger = () => emulator.storage.certificates;

  app.get('/certificates/keys', PUBLIC, async (_request, reply) => {
    // A key made at start-up is there before the first certificate: the set is never empty.
    await ledger().currentKey(() => newSigningKey());
    reply.header('cache-control', 'no-cache');
    return keySet(await ledger().keys());
  });

  app.get('/certificates/revoked', PUBLIC, async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return { data: (await ledger().revoked()).map((r) => ({ id: r.id, revoked_at: formatDate(r.revokedAt) })) };
  });

  app.get('/certificates', async (request) => {
    const { limit } = parseOrThrow(listQuery, request.query);
    return { data: (await ledger().list(limit)).map(certificateView) };
  });

  app.post<IdParams>('/certificates/:id/revoke', async (request) => {
    controlBody(noFields, request.body);
    const revoked = await ledger().revoke(request.params.id, Date.now());
    if (!revoked) throw ApiError.of('not_found', undefined, 'No existe ese certificado.');
    return { data: certificateView(revoked) };
  });

  app.post('/certificates/rotate-key', async (request, reply) => {
    controlBody(noFields, request.body);
    const key = newSigningKey();
    // The key that signed until now is made first when there was none: a rotation always retires one.
    await ledger().currentKey(() => newSigningKey());
    const retired = await ledger().rotate(key, key.createdAt);
    reply.code(201);
    return { data: { kid: key.kid, created_at: formatDate(key.createdAt), retired } };
  });
}
