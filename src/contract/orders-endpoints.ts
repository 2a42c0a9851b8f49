import { endpoint, type Endpoint } from './endpoint.js';
import { listEnvelope, singleEnvelope } from './common.js';
import {
  ackBody,
  importFailureBody,
  order,
  orderExternalIdParams,
  orderIdParams,
  orderListQuery,
  statusChangeBody,
} from './orders.js';
import { feedQuery, feedResponse } from './events.js';

// spec: Endpoints — orders
export const listOrders = endpoint({
  id: 'listOrders', method: 'GET', path: '/orders', summary: 'Listar pedidos, el más antiguo primero', scope: 'orders:read',
  idempotency: 'none', query: orderListQuery, status: 200, response: listEnvelope(order), errors: ['invalid_cursor', 'validation_failed'],
});
export const getOrderByExternalId = endpoint({
  id: 'getOrderByExternalId', method: 'GET', path: '/orders/by-external-id/{external_id}',
  summary: 'Pedido por el código informado en la confirmación', scope: 'orders:read', idempotency: 'none',
  params: orderExternalIdParams, status: 200, response: singleEnvelope(order), errors: ['not_found'],
});
export const getOrder = endpoint({
  id: 'getOrder', method: 'GET', path: '/orders/{order_id}', summary: 'Un pedido', scope: 'orders:read', idempotency: 'none',
  params: orderIdParams, status: 200, response: singleEnvelope(order), errors: ['not_found'],
});
export const ackOrder = endpoint({
  id: 'ackOrder', method: 'POST', path: '/orders/{order_id}/ack', summary: 'Confirmar que el pedido se importó',
  scope: 'orders:write', idempotency: 'required', params: orderIdParams, body: ackBody, status: 200, response: singleEnvelope(order),
  errors: ['idempotency_key_required', 'invalid_idempotency_key', 'not_found', 'external_id_conflict', 'idempotency_conflict', 'request_in_progress', 'validation_failed'],
});
export const reportImportFailure = endpoint({
  id: 'reportImportFailure', method: 'POST', path: '/orders/{order_id}/import-failure', summary: 'Informar que el pedido no se pudo importar',
  scope: 'orders:write', idempotency: 'required', params: orderIdParams, body: importFailureBody, status: 200,
  response: singleEnvelope(order),
  errors: ['idempotency_key_required', 'invalid_idempotency_key', 'not_found', 'already_acknowledged', 'idempotency_conflict', 'request_in_progress', 'validation_failed'],
});
export const changeOrderStatus = endpoint({
  id: 'changeOrderStatus', method: 'POST', path: '/orders/{order_id}/status', summary: 'Cambiar el estado del pedido',
  scope: 'orders:write', idempotency: 'required', params: orderIdParams, body: statusChangeBody, status: 200,
  response: singleEnvelope(order),
  errors: [
    'idempotency_key_required', 'invalid_idempotency_key', 'status_authority_denied', 'not_found', 'invalid_status_transition',
    'idempotency_conflict', 'request_in_progress', 'validation_failed',
  ],
});

// spec: Endpoints — the event feed
export const listEvents = endpoint({
  id: 'listEvents', method: 'GET', path: '/events', summary: 'Feed de eventos en orden estricto de creación', scope: 'orders:read',
  idempotency: 'none', query: feedQuery, status: 200, response: feedResponse, errors: ['invalid_cursor', 'validation_failed'],
});

export const ORDER_ENDPOINTS: Endpoint[] = [
  listOrders, getOrderByExternalId, getOrder, ackOrder, reportImportFailure, changeOrderStatus, listEvents,
];
