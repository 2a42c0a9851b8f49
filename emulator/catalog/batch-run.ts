import { createHash } from 'node:crypto';
import { ApiError } from '../../src/contract/errors.js';
import { LIMITS } from '../../src/contract/limits.js';
import { batchRequest, type BatchResponse } from '../../src/contract/catalog.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import type { EnvContext } from '../context.js';
import type { Emulator } from '../emulator.js';
import type { IntegrationRecord } from '../stores/repository.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { requireBody } from '../http/route.js';
import { rateLimited } from '../http/reply.js';
import { runOperations, summarize } from './batch.js';
import { assertCatalogManaged } from './guard.js';
import { readSnapshotRequest } from './snapshot.js';
import { finishPart, startPart } from './snapshot-run.js';

/** spec: Limits — more than 500 operations is 413 before anything else is looked at; none is processed. */
function assertOperationCount(body: unknown): void {
  const operations = (body as { operations?: unknown } | undefined)?.operations;
  if (Array.isArray(operations) && operations.length > LIMITS.batchOperations) {
    throw ApiError.of('payload_too_large', undefined, `Un lote admite como máximo ${LIMITS.batchOperations} operaciones; se recibieron ${operations.length}.`);
  }
}

/**
 * DESIGN: an empty `operations` list is a request-level 422. As a full snapshot it would otherwise
 * say "the catalog is empty" and deactivate every linked item under `missing_items_policy: deactivate`.
 */
function assertSomeOperation(operations: unknown[]): void {
  if (operations.length === 0) {
    throw ApiError.validation([{ field: 'operations', code: 'too_small', message: 'El lote debe tener al menos una operación.' }]);
  }
}

/**
 * POST /catalog/batch (spec: Batch request and response, Full snapshot rules, Limits). In order: the
 * operation count, the catalog mode (the whole request 403 in `manual`), the envelope (a request-level
 * 422), one batch at a time per integration, ten batches a minute, the snapshot's part order; then
 * the operations, each in its own transaction.
 */
export async function runBatch(env: EnvContext, emulator: Emulator, integration: IntegrationRecord, rawBody: unknown): Promise<BatchResponse> {
  assertOperationCount(requireBody(rawBody));
  assertCatalogManaged(integration);
  const body = parseOrThrow(batchRequest, rawBody);
  assertSomeOperation(body.operations);
  const snapshot = readSnapshotRequest(body);
  // spec: Limits — one batch at a time per integration; the next meets 409 `batch_in_progress`.
  const { batches, windows } = emulator.storage.coordination;
  if (!(await batches.acquire(env.name, integration.id))) throw ApiError.of('batch_in_progress').withHeaders({ 'Retry-After': '1' });
  try {
    if (emulator.options.limits) {
      const hit = await windows.hit('batches', integration.id, env.clock.now());
      if (!hit.allowed) throw rateLimited(hit.retryAfterSeconds, env.clock.mode);
    }
    if (!snapshot) {
      const results = await runOperations(env, integration, body.operations);
      return { summary: summarize(results), results, sync_run_id: env.ids.next('syncRun') };
    }
    const fingerprint = createHash('sha256').update(canonicalJson(rawBody)).digest('hex');
    const start = await startPart(env, integration, snapshot, body.operations, fingerprint);
    if (start.kind === 'replay') return start.data;
    const results = await runOperations(env, integration, body.operations);
    return await finishPart(env, integration, start.part, results);
  } finally {
    await batches.release(env.name, integration.id);
  }
}
