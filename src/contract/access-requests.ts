import { z } from 'zod';
import { ACCESS_REQUEST_STATUSES } from './enums.js';

// DESIGN: The operator's public test environment — an integrator asks for a test store
// (`POST /_emulator/access-requests`, or the form at `/access`), the operator approves or denies it
// with the admin token, and the integrator follows it with the request's id and claim secret.
// Same rules as the API: unknown fields are 422, every problem is a `details` entry.

export { ACCESS_REQUEST_STATUSES };
/** The states of a request: decided once, by the operator. */
export type AccessRequestStatus = (typeof ACCESS_REQUEST_STATUSES)[number];

/** `acr_` plus 26 characters, as every id of the service (spec: Conventions, Identifiers). */
export const ACCESS_REQUEST_PREFIX = 'acr_';
/** The claim secret's prefix and shape: shown once, kept as a SHA-256 digest. */
export const CLAIM_SECRET_PREFIX = 'mkc_';
export const CLAIM_SECRET_PATTERN = /^mkc_[A-Za-z0-9]{40}$/;

/** Limits of the access requests (docs/team-sandbox.md, Decisions). */
export const ACCESS_LIMITS = {
  /** Bytes of a request body, JSON or the form's: a few short fields. */
  bodyBytes: 4096,
  companyMax: 120,
  systemMax: 60,
  // RFC 5321: a path is at most 256 octets with its brackets, so an address at most 254.
  emailMax: 254,
  reasonMin: 3,
  reasonMax: 500,
  /** Requests from one IP per minute (real minutes), then 429 until the minute ends. */
  perIpPerMinute: 5,
  /** Pending requests the sandbox keeps at once; beyond, 429 until the operator decides some. */
  pendingMax: 100,
  /** Retry-After of the pending cap's 429: the operator decides on a human scale. */
  pendingRetryAfterSeconds: 300,
} as const;

// Text a person typed: trimmed, and no control characters (a name shown in the operator's panel and
// used as the store's name).
const personText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), { message: 'No puede contener caracteres de control.', params: { code: 'invalid' } });

/** POST /_emulator/access-requests (and the form's fields). */
export const accessRequestCreate = z.strictObject({
  company: personText(ACCESS_LIMITS.companyMax),
  contact_email: z.string().trim().max(ACCESS_LIMITS.emailMax).pipe(z.email()),
  // The integration's `system` (spec: integration.system): the ERP or point of sale the integrator builds.
  system: personText(ACCESS_LIMITS.systemMax),
});
export type AccessRequestCreate = z.output<typeof accessRequestCreate>;

/** POST /_emulator/access-requests/{id}/deny — the reason the integrator reads. */
export const accessRequestDeny = z.strictObject({
  reason: z.string().trim().min(ACCESS_LIMITS.reasonMin).max(ACCESS_LIMITS.reasonMax),
});

/** POST /_emulator/access-requests/{id}/approve — no fields: the store is named after the request. */
export const accessRequestApprove = z.strictObject({});

/** GET /_emulator/access-requests — the operator's list, newest first. */
export const accessRequestListQuery = z.strictObject({
  status: z.enum(ACCESS_REQUEST_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});

/** 201 of POST /_emulator/access-requests: the claim secret is shown here once. */
export interface AccessRequestCreated {
  id: string;
  status: 'pending';
  claim_secret: string;
}

/**
 * GET /_emulator/access-requests/{id} with the claim secret: the request as its integrator follows
 * it. `credential` and `store_token` are there in the first read after approval only, null after.
 */
export interface AccessRequestStatusView {
  id: string;
  status: AccessRequestStatus;
  reason: string | null;
  store_id: string | null;
  integration_id: string | null;
  credential: string | null;
  store_token: string | null;
}

/** A request as the operator sees it (admin token): never its claim secret or what it will hand over. */
export interface AccessRequestView {
  id: string;
  status: AccessRequestStatus;
  company: string;
  contact_email: string;
  system: string;
  reason: string | null;
  store_id: string | null;
  integration_id: string | null;
  created_at: string;
  decided_at: string | null;
  /** When the integrator took the credential and store token (the first read after approval). */
  claimed_at: string | null;
}
