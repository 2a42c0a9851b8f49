// Reasons in a report are English; the API's messages are Spanish (spec: Errors). When a reason has
// to quote the API, it first says in English what the answer means for the integrator, then quotes
// the code and the Spanish message as the API gave them.

/** What an API error code means for the integrator, as far as the observer's reasons quote them. */
const MEANING: Record<string, string> = {
  store_closed: 'the store is not taking orders: it has no active product (publish your catalog first) or its switch is off (PATCH /store {"accepting_orders": true})',
  store_suspended: 'the store is suspended in the panel',
  invalid_status_transition: 'the order had already moved on (it may be final), so that status change was refused',
  status_authority_denied: "order_status_authority does not allow that status change (the setting says who may move an order's status)",
  no_products_available: 'the store has no product that can be ordered: publish an active, available product',
  no_panel_product: 'the store has no panel product without a code to order',
  fulfillment_unavailable: 'the store does not offer that fulfillment type (delivery or pickup)',
  unknown_product: 'a product of the order is no longer in the catalog, active and available',
  not_found: 'it does not exist (or belongs to another store)',
  validation_failed: 'the data was refused as invalid',
  internal_error: 'the emulator failed unexpectedly (safe to repeat an idempotent request)',
  maintenance: 'the API is temporarily unavailable (it says when to try again in Retry-After)',
  rate_limited: 'too many requests: the rate limit was exceeded (it says when to try again in Retry-After)',
  unauthenticated: 'the credential was refused (absent, invalid, expired or revoked)',
  insufficient_scope: 'the credential lacks a scope the call needs (ask the merchant for it)',
};

interface ApiLike {
  /** An HTTP answer's status; 0 for a network failure (no answer at all, so nothing of the API's to quote). */
  status?: number;
  code?: string;
  message?: string;
  details?: unknown;
}

/** The first field-level detail (`details[0]`), which says more than `validation_failed`. */
function firstDetail(error: ApiLike): { code: string; message: string } | null {
  const first = Array.isArray(error.details) ? (error.details[0] as { code?: unknown; message?: unknown } | undefined) : undefined;
  return typeof first?.code === 'string' && typeof first.message === 'string' ? { code: first.code, message: first.message } : null;
}

/**
 * "the store is not taking orders: … (the API answered store_closed: «El comercio no está recibiendo pedidos.»)".
 * Anything that is not an API error is given as its message.
 * @example
 * problems.push(`the delivery order could not be made: ${apiMeaning(error)}`);
 */
export function apiMeaning(error: unknown): string {
  const e = (error ?? {}) as ApiLike;
  const code = typeof e.code === 'string' ? e.code : null;
  const message = typeof e.message === 'string' ? e.message : String(error);
  if (!code || e.status === 0) return message;
  const detail = firstDetail(e);
  const meaning = (detail && MEANING[detail.code]) ?? MEANING[code] ?? `the API refused it (${code})`;
  return `${meaning} (the API answered ${detail?.code ?? code}: «${detail?.message ?? message}»)`;
}
