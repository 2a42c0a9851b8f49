import { describe, expect, it } from 'vitest';
import { apiMeaning } from '../../../checks/internal/api-meaning.js';
import { ApiError } from '../../../src/client/errors.js';

// Reasons are English; the API's messages are Spanish (spec: Errors). A reason that quotes the API
// says first, in English, what the answer means for the integrator.

describe('apiMeaning', () => {
  it('says in English what store_closed means, then quotes the code and the Spanish message', () => {
    const error = new ApiError({ status: 422, code: 'store_closed', message: 'El comercio no está recibiendo pedidos.' });
    expect(apiMeaning(error)).toBe('the store is not taking orders: it has no active product (publish your catalog first) or its switch is off (PATCH /store {"accepting_orders": true}) (the API answered store_closed: «El comercio no está recibiendo pedidos.»)');
  });

  it('explains a refused status move and a 503 storm in English', () => {
    expect(apiMeaning({ code: 'invalid_status_transition', message: 'El pedido no puede pasar a ese estado.' })).toMatch(/^the order had already moved on \(it may be final\), so that status change was refused \(the API answered invalid_status_transition: «El pedido no puede pasar a ese estado\.»\)$/);
    expect(apiMeaning(new ApiError({ status: 503, code: 'maintenance', message: 'Servicio en mantenimiento.' }))).toMatch(/^the API is temporarily unavailable .*«Servicio en mantenimiento\.»\)$/);
  });

  it('explains validation_failed by its first field detail', () => {
    const error = { code: 'validation_failed', message: 'Datos inválidos.', details: [{ field: 'items', code: 'unknown_product', message: 'Producto inexistente.' }] };
    expect(apiMeaning(error)).toBe('a product of the order is no longer in the catalog, active and available (the API answered unknown_product: «Producto inexistente.»)');
  });

  it('names a code it has no meaning for as a refusal, still quoting it', () => {
    expect(apiMeaning({ code: 'snapshot_closed', message: 'Snapshot cerrado.' })).toBe('the API refused it (snapshot_closed) (the API answered snapshot_closed: «Snapshot cerrado.»)');
  });

  it('gives a network failure (no answer, status 0) or anything else as its own message, quoting no API', () => {
    expect(apiMeaning(new ApiError({ status: 0, code: 'network_error', message: 'connect ECONNREFUSED 127.0.0.1:9' }))).toBe('connect ECONNREFUSED 127.0.0.1:9');
    expect(apiMeaning(new Error('boom'))).toBe('boom');
  });
});
