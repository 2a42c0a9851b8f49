import { ApiError } from '../../src/contract/errors.js';
import type { CredentialRecord, IntegrationRecord, StoreRecord } from '../stores/repository.js';

/** Who calls an API route: the credential's records, as the environment's pipeline found them (api/authenticate.ts). */
export interface AuthContext {
  integration: IntegrationRecord;
  store: StoreRecord;
  credential: CredentialRecord;
}

// What a route reads of its request: the caller (set by the environment's pipeline), and whether the
// route answers without a credential.
declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** Routes that answer without a credential (the OpenAPI document). */
    public?: boolean;
  }
}

/** spec: Authentication 6 — suspension answers 403 everywhere but GET /me. */
export function assertNotSuspended(auth: AuthContext): void {
  if (auth.integration.status === 'suspended') throw ApiError.of('integration_suspended');
  if (auth.store.suspended) throw ApiError.of('store_suspended');
}

