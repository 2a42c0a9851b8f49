import { describe, expect, it } from 'vitest';
import { checkRequest, checkResponse, type RequestFacts } from '../../../src/cli/commands/proxy/validate.js';

const ORDER = 'ord_01JD0000000000000000000000';

function req(method: string, path: string, extra: Partial<RequestFacts> = {}): RequestFacts {
  return { method, path, query: new URLSearchParams(), idempotencyKey: undefined, contentType: undefined, body: undefined, ...extra };
}

const json = (value: unknown) => ({ contentType: 'application/json; charset=utf-8', body: Buffer.from(JSON.stringify(value)) });
const rules = (r: { violations: { rule: string }[] }) => r.violations.map((v) => v.rule);

describe('checkRequest', () => {
  it.each([
    ['a well-formed GET /me', req('GET', '/me'), []],
    ['an operation the API does not have', req('GET', '/nope'), ['unknown_endpoint']],
    ['an ack without Idempotency-Key', req('POST', `/orders/${ORDER}/ack`, json({ external_id: 'ERP-1' })), ['idempotency_key_required']],
    ['an ack with a 3-character key', req('POST', `/orders/${ORDER}/ack`, { ...json({ external_id: 'ERP-1' }), idempotencyKey: 'abc' }), ['invalid_idempotency_key']],
    ['an ack with a good key', req('POST', `/orders/${ORDER}/ack`, { ...json({ external_id: 'ERP-1' }), idempotencyKey: 'erp-ack-0001' }), []],
    ['a category with an unknown field', req('PUT', '/catalog/categories/CAT-1', json({ name: 'Bebidas', colour: 'red' })), ['validation_failed']],
    ['a product price sent as a number', req('PUT', '/catalog/products/P-1', json({ name: 'Coca', category_external_id: 'CAT-1', price: 8000 })), ['validation_failed']],
    ['a body that is not JSON', req('PATCH', '/store', { contentType: 'application/json', body: Buffer.from('{oops') }), ['malformed_json']],
    ['a JSON body sent as text/plain', req('PATCH', '/store', { contentType: 'text/plain', body: Buffer.from('{"accepting_orders":true}') }), ['malformed_json']],
    ['a write without a body', req('POST', `/orders/${ORDER}/status`, { idempotencyKey: 'erp-status-01' }), ['malformed_json']],
    ['a GET with a body', req('GET', '/store', json({ x: 1 })), ['unexpected_body']],
    ['a limit over 200', req('GET', '/orders', { query: new URLSearchParams('limit=500') }), ['invalid_query']],
    ['an external code with a space', req('DELETE', '/catalog/categories/CAT%201'), ['invalid_path']],
    // issue 15: what the emulator refuses, the proxy names: a lone surrogate escape in a text.
    ['a name with a lone UTF-16 surrogate', req('PUT', '/catalog/categories/CAT-1', { contentType: 'application/json', body: Buffer.from('{"name":"Bebidas \\ud800"}') }), ['validation_failed']],
  ])('%s', (_name, facts, expected) => {
    expect(rules(checkRequest(facts))).toEqual(expected);
  });

  it('names the field of a validation problem', () => {
    const { violations } = checkRequest(req('PUT', '/catalog/categories/CAT-1', json({ name: 'Bebidas', colour: 'red' })));
    expect(violations[0]).toMatchObject({ field: 'colour', spec: expect.stringContaining('422') });
  });

  it('matches /orders/by-external-id/{code} before /orders/{order_id}', () => {
    expect(checkRequest(req('GET', '/orders/by-external-id/ERP-1')).match?.endpoint.id).toBe('getOrderByExternalId');
  });
});

describe('checkResponse', () => {
  const me = checkRequest(req('GET', '/me')).match;

  it('accepts an error body of the spec', () => {
    const body = Buffer.from(JSON.stringify({ error: { code: 'unauthenticated', message: 'x', request_id: 'req_1' } }));
    expect(checkResponse(me, { status: 401, contentType: 'application/json', body })).toEqual([]);
  });

  it('accepts fields the spec does not name in a response (spec: Conventions, clients ignore unknown fields)', () => {
    const body = Buffer.from(JSON.stringify({ error: { code: 'unauthenticated', message: 'x', request_id: 'req_1', hint: 'new' }, trace: 'abc' }));
    expect(checkResponse(me, { status: 401, contentType: 'application/json', body })).toEqual([]);
  });

  it('flags an error body without request_id', () => {
    const body = Buffer.from(JSON.stringify({ error: { code: 'unauthenticated', message: 'x' } }));
    expect(checkResponse(me, { status: 401, contentType: 'application/json', body }).map((v) => v.rule)).toEqual(['response_schema']);
  });

  it('flags a success body that breaks the schema and a status the endpoint never answers', () => {
    expect(checkResponse(me, { status: 200, contentType: 'application/json', body: Buffer.from('{"data":{}}') })[0].rule).toBe('response_schema');
    expect(checkResponse(me, { status: 204, contentType: 'application/json', body: Buffer.from('{}') })[0].rule).toBe('unexpected_status');
  });

  it('flags a response that is not JSON', () => {
    expect(checkResponse(me, { status: 200, contentType: 'text/html', body: Buffer.from('<html>') })[0].rule).toBe('response_not_json');
  });
});
