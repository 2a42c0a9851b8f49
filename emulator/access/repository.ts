import type { AccessRequestStatus } from '../../src/contract/access-requests.js';

// The access requests' records and repository (DESIGN: The operator's public test environment). They
// live in the test environment, beside the stores their approval makes: a reset empties them with the
// stores, a bundle carries them (digests and sealed hand-overs, never a secret in clear).

export interface AccessRequestRecord {
  id: string;
  status: AccessRequestStatus;
  company: string;
  contactEmail: string;
  system: string;
  /** SHA-256 of the claim secret (the secret itself is shown once and never kept). */
  claimSha256: Buffer;
  /** The X25519 public key the claim secret derives: what an approval seals its hand-over to. */
  sealKey: Buffer;
  /** The operator's reason, when denied. */
  reason: string | null;
  storeId: string | null;
  integrationId: string | null;
  /** The credential and store token of an approval, sealed to `sealKey`, until the integrator's first read. */
  sealed: Buffer | null;
  createdAt: number;
  decidedAt: number | null;
  claimedAt: number | null;
}

export interface NewAccessRequest {
  id: string;
  company: string;
  contactEmail: string;
  system: string;
  claimSha256: Buffer;
  sealKey: Buffer;
}

export interface Approval {
  storeId: string;
  integrationId: string;
  sealed: Buffer;
}

export interface AccessRequestsRepository {
  /**
   * Writes a pending request unless the environment already holds `cap` pending ones; false at the
   * cap. Inside a transaction the count and the write are one step for every process of a sandbox.
   */
  insertPending(request: NewAccessRequest, cap: number, now: number): Promise<boolean>;
  byId(id: string): Promise<AccessRequestRecord | undefined>;
  /** Newest first; only those of `status` when given. */
  list(status: AccessRequestStatus | null, limit: number): Promise<AccessRequestRecord[]>;
  /** pending → approved, with what it made and hands over; false when the request was not pending (decided once). */
  approve(id: string, approval: Approval, now: number): Promise<boolean>;
  /** pending → denied with the reason; false when the request was not pending. */
  deny(id: string, reason: string, now: number): Promise<boolean>;
  /**
   * The sealed hand-over of an approved request, taken: the first caller gets it and `claimedAt` is
   * set; every later one (on any process, at the same moment included) gets null.
   */
  takeSealed(id: string, now: number): Promise<Buffer | null>;
}
