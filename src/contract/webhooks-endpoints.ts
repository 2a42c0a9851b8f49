import { z } from 'zod';
import { endpoint, type Endpoint } from './endpoint.js';
import { id, singleEnvelope } from './common.js';
import {
  deliveriesQuery,
  deliveryRecord,
  rotateSecretResult,
  webhook,
  webhookInput,
  webhookTestResult,
} from './webhooks.js';
import { entrega, entregaActionBodies, entregaActionBody, entregaActionParams, entregaCreate, entregaParams } from './entregas.js';

// spec: Endpoints — webhook rows
export const getWebhook = endpoint({
  id: 'getWebhook', method: 'GET', path: '/webhook', summary: 'Configuración del webhook', scope: 'webhooks:manage',
  idempotency: 'none', status: 200, response: singleEnvelope(webhook), errors: ['not_found'],
});
export const putWebhook = endpoint({
  id: 'putWebhook', method: 'PUT', path: '/webhook', summary: 'Crear o actualizar el webhook (201 con signing_secret al crearlo)',
  scope: 'webhooks:manage', idempotency: 'none', body: webhookInput, status: 201, alsoStatus: [200],
  response: singleEnvelope(webhook), errors: ['validation_failed'],
});
export const rotateWebhookSecret = endpoint({
  id: 'rotateWebhookSecret', method: 'POST', path: '/webhook/rotate-secret', summary: 'Rotar el secreto de firma',
  scope: 'webhooks:manage', idempotency: 'optional', status: 200, response: singleEnvelope(rotateSecretResult), errors: ['not_found'],
});
export const testWebhook = endpoint({
  id: 'testWebhook', method: 'POST', path: '/webhook/test', summary: 'Enviar un evento webhook.test',
  scope: 'webhooks:manage', idempotency: 'optional', status: 202, response: singleEnvelope(webhookTestResult), errors: ['not_found'],
});
export const listWebhookDeliveries = endpoint({
  id: 'listWebhookDeliveries', method: 'GET', path: '/webhook/deliveries', summary: 'Entregas recientes del webhook',
  scope: 'webhooks:manage', idempotency: 'none', query: deliveriesQuery, status: 200,
  // spec: no next_cursor in this envelope
  response: z.object({ data: z.array(deliveryRecord) }), errors: ['validation_failed'],
});
export const retryWebhookDelivery = endpoint({
  id: 'retryWebhookDelivery', method: 'POST', path: '/webhook/deliveries/{delivery_id}/retry',
  summary: 'Reenviar una entrega ahora (responde con el registro tras el intento)', scope: 'webhooks:manage', idempotency: 'none',
  params: z.strictObject({ delivery_id: id('delivery') }), status: 200, response: singleEnvelope(deliveryRecord),
  errors: ['not_found', 'delivery_in_progress'],
});

// spec: Endpoints — independent deliveries (/entregas)
export const createEntrega = endpoint({
  id: 'createEntrega', method: 'POST', path: '/entregas', summary: 'Solicitar una entrega independiente (201; 200 si request_key ya existía)',
  scope: 'orders:write', idempotency: 'required', body: entregaCreate, status: 201, alsoStatus: [200],
  response: singleEnvelope(entrega), errors: ['not_found', 'idempotency_conflict', 'invalid_status_transition', 'validation_failed'],
});
export const getEntrega = endpoint({
  id: 'getEntrega', method: 'GET', path: '/entregas/{id}', summary: 'Una entrega independiente del comercio',
  scope: 'orders:read', idempotency: 'none', params: entregaParams, status: 200, response: singleEnvelope(entrega), errors: ['not_found'],
});
export const entregaActionEndpoint = endpoint({
  id: 'entregaAction', method: 'POST', path: '/entregas/{id}/{action}', summary: 'Acción sobre una entrega: pickup, raise_fee, cancel, returned',
  scope: 'orders:write', idempotency: 'required', params: entregaActionParams, body: entregaActionBody, status: 200,
  response: singleEnvelope(entrega), errors: ['not_found', 'invalid_status_transition', 'validation_failed'],
  bodiesByParam: { param: 'action', bodies: entregaActionBodies },
});

export const WEBHOOK_ENDPOINTS: Endpoint[] = [
  getWebhook, putWebhook, rotateWebhookSecret, testWebhook, listWebhookDeliveries, retryWebhookDelivery,
  createEntrega, getEntrega, entregaActionEndpoint,
];
