import type { Endpoint } from './endpoint.js';

// spec: Endpoints — the webhooks rows, filled in by the webhooks work.
export const WEBHOOK_ENDPOINTS: Endpoint[] = [];
