import type { Endpoint } from './endpoint.js';
import { CORE_ENDPOINTS } from './endpoints.js';
import { ORDER_ENDPOINTS } from './orders-endpoints.js';
import { WEBHOOK_ENDPOINTS } from './webhooks-endpoints.js';

/** Every endpoint of the spec, in the order of its Endpoints table: the source of routes and OpenAPI. */
export const ALL_ENDPOINTS: Endpoint[] = [...CORE_ENDPOINTS, ...ORDER_ENDPOINTS, ...WEBHOOK_ENDPOINTS];
