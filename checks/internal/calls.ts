import type { Observation, RecordedCall } from '../../src/contract/observation.js';
import { fail, pending, skip, type CheckOutcome, type Evidence } from '../types.js';

export const ok2xx = (c: RecordedCall) => c.status >= 200 && c.status < 300;

/** Evidence of an observed call. */
export function callEvidence(step: string, c: RecordedCall, ok = ok2xx(c), expected?: string): Evidence {
  const e: Evidence = {
    step,
    ok,
    method: c.method,
    path: c.path,
    status: c.status,
    request_id: c.request_id,
    duration_ms: c.duration_ms,
    idempotency_key: c.idempotency_key,
  };
  if (expected !== undefined) Object.assign(e, { expected, actual: c.code ? `${c.status} ${c.code}` : String(c.status) });
  return e;
}

/** Evidence of the call a graded step needs, or of its absence. */
export function stepEvidence(step: string, c: RecordedCall | undefined, expected = 'seen'): Evidence {
  return c ? callEvidence(step, c) : { step, ok: false, expected, actual: 'not seen' };
}

/**
 * The session's wait when the store has nothing the ERP published to order (DESIGN: Nothing to
 * grade); at the deadline catalog fails with it and the checks that need orders are not graded.
 */
export const PUBLISH_FIRST = 'publish your catalog first: the store has no active, available product of your ERP (with an external code), so the session waits for one before it makes its orders';

/**
 * DESIGN: Nothing to grade — while the session waits for something to order (publish your catalog
 * first), the checks that need its orders wait with that reason; at the deadline they are not graded
 * (skipped) with it, and only catalog fails. null once the session made its orders.
 */
export function waitingForOrders(obs: Observation): CheckOutcome | null {
  const why = obs.session.waiting;
  if (!why) return null;
  return expired(obs) ? skip(`not graded: the session never made its orders (${why})`) : pending(why);
}

/** Steps still missing are awaited until the observer's deadline, then they fail. */
export function missingSteps(obs: Observation, evidence: Evidence[]): CheckOutcome {
  const missing = evidence.filter((e) => !e.ok).map((e) => e.step).join('; ');
  return expired(obs) ? fail(`missing: ${missing}`, evidence) : pending(`waiting for: ${missing}`, evidence);
}

/** Calls matching a method and a path pattern (`/orders/*\/ack`, `*` within one segment). */
export function callsTo(obs: Pick<Observation, 'calls'>, method: string, pattern: string): RecordedCall[] {
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
  return obs.calls.filter((c) => c.method === method && re.test(c.path));
}

/** The order id of `/orders/{id}/…`. */
export const orderOf = (c: RecordedCall) => c.path.split('/')[2] ?? '';

/** A request sent again after its answer: same method, path and body, at a later time. */
export function repeatedAfter(obs: Observation, c: RecordedCall): RecordedCall | undefined {
  return obs.calls.find((o) => o.seq > c.seq && o.method === c.method && o.path === c.path && (o.body_sha256 === c.body_sha256 || (c.idempotency_key !== null && o.idempotency_key === c.idempotency_key)));
}

/** The observer's deadline passed: what is still missing fails. */
export const expired = (obs: Observation) => obs.now >= obs.session.deadline;

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The last path segment, decoded (an external code in `/catalog/products/{external_id}`). */
export function lastSegment(c: RecordedCall): string {
  const raw = c.path.slice(c.path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A refusal a client must not send again unchanged: 409 and 422 (not 409 request_in_progress, which says "later"). */
export const refusal = (c: RecordedCall) => !c.injected && (c.status === 409 || c.status === 422) && c.code !== 'request_in_progress';

/** The first refused call among `calls` that was sent again unchanged, with its repeat (`isRefusal`: what counts as refused). */
export function refusedThenRepeated(obs: Observation, calls: RecordedCall[], isRefusal: (c: RecordedCall) => boolean = refusal): { refused: RecordedCall; again: RecordedCall } | null {
  for (const refused of calls.filter(isRefusal)) {
    const again = repeatedAfter(obs, refused);
    if (again) return { refused, again };
  }
  return null;
}

/** "POST /orders/ord_…/status (req_…)": how a failure names a call. */
export const callName = (c: RecordedCall) => `${c.method} ${c.path} (${c.request_id})`;

/**
 * DESIGN: misbehaviour is never demanded, only a wrong reaction fails — here a refused call sent
 * again unchanged. The failure names both calls; null when there is none.
 */
export function repeatedRefusal(obs: Observation, calls: RecordedCall[], what: string): CheckOutcome | null {
  const found = refusedThenRepeated(obs, [...calls].sort((a, b) => a.seq - b.seq));
  if (!found) return null;
  const { refused, again } = found;
  const answer = `${refused.status} ${refused.code ?? ''}`.trim();
  const evidence = [callEvidence(`refused with ${answer}`, refused, true), callEvidence('sent again unchanged', again, false, 'not repeated without fixing the cause')];
  return fail(`${callName(again)} repeated ${what} refused with ${answer} (${refused.request_id}) unchanged: a refusal is not retried without fixing its cause`, evidence);
}
