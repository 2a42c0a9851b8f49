import { describe, expect, it } from 'vitest';
import { matchEndpoint } from '../../src/contract/route-match.js';

// The proxy's reading of a request path (src/contract/route-match.ts): the spec's row and its path
// parameters, or nothing for an operation the API does not have.
describe('matchEndpoint', () => {
  it.each([
    ['GET', '/me', 'getMe', {}],
    ['patch', '/store', 'patchStore', {}],
    ['GET', '/orders/by-external-id/ERP-1', 'getOrderByExternalId', { external_id: 'ERP-1' }],
    ['GET', '/orders/ord_01JD0000000000000000000000', 'getOrder', { order_id: 'ord_01JD0000000000000000000000' }],
    ['GET', '/orders/by-external-id', 'getOrder', { order_id: 'by-external-id' }],
    ['POST', '/orders/ord_1/ack/', 'ackOrder', { order_id: 'ord_1' }],
    ['PUT', '/catalog/products/SKU%3A1', 'putProduct', { external_id: 'SKU:1' }],
    ['PUT', '/catalog/products/bad%E0%A4%A', 'putProduct', { external_id: 'bad%E0%A4%A' }],
    ['POST', '/entregas/ent_1/pickup', 'entregaAction', { id: 'ent_1', action: 'pickup' }],
    ['POST', '/webhook/deliveries/dlv_1/retry', 'retryWebhookDelivery', { delivery_id: 'dlv_1' }],
  ])('%s %s is %s', (method, path, id, params) => {
    const match = matchEndpoint(method, path);
    expect(match?.endpoint.id).toBe(id);
    expect(match?.params).toEqual(params);
  });

  it.each([
    ['DELETE', '/orders/ord_1'],
    ['GET', '/orders/ord_1/ack/extra'],
    ['GET', '/catalog'],
    ['GET', '/catalogXproducts'],
    ['GET', 'me'],
  ])('has no row for %s %s', (method, path) => {
    expect(matchEndpoint(method, path)).toBeUndefined();
  });
});
