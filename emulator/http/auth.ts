import { ApiError } from '../../src/contract/errors.js';
import type { Admission, AdmitRead } from '../store/port.js';
import type { CredentialRecord, IntegrationRecord, StoreRecord } from '../stores/repository.js';
import type { EnvContext } from '../context.js';

/** Who calls an API route: the credential's records, as the environment's pipeline found them (api/authenticate.ts). */
export interface AuthContext {
  integration: IntegrationRecord;
  store: StoreRecord;
  credential: CredentialRecord;
}

// What a route reads of its request: its environment and the caller (set by the environments'
// pipeline), and whether the route answers without a credential.
declare module 'fastify' {
  interface FastifyRequest {
    /** The environment of an API request, by its base path (api/env-plugin.ts); null elsewhere. */
    env: EnvContext | null;
    auth: AuthContext | null;
    /** What the request's admission read for its route (a server database; null elsewhere). */
    prefetch: Prefetch | null;
  }
  interface FastifyContextConfig {
    /** Routes that answer without a credential (the OpenAPI document). */
    public?: boolean;
    /**
     * The route's read that a server database makes with the request's admission (store/port.ts,
     * Admissions), from the request's params and query as they came (undefined: none, as when they
     * are not valid: the route then answers its error without it).
     */
    prefetch?: (request: { params: unknown; query: unknown }) => AdmitRead | undefined;
    /** Set on every route of an environment on a server database: admitted in one statement (api/env-plugin.ts). */
    admitted?: boolean;
  }
}

/**
 * What the admission read for the route: GET /orders/{id}'s order (undefined: no order of that id), a
 * status call's order status, a products or feed page.
 */
export interface Prefetch {
  order: Admission['order'];
  orderStatus?: Admission['orderStatus'];
  products?: Admission['products'];
  feed?: Admission['feed'];
}

/** spec: Authentication 6 — suspension answers 403 everywhere but GET /me. */
export function assertNotSuspended(auth: AuthContext): void {
  if (auth.integration.status === 'suspended') throw ApiError.of('integration_suspended');
  if (auth.store.suspended) throw ApiError.of('store_suspended');
}

