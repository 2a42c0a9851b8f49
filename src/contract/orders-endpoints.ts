import type { Endpoint } from './endpoint.js';

// spec: Endpoints — the orders rows, filled in by the orders work.
export const ORDER_ENDPOINTS: Endpoint[] = [];
