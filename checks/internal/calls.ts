import type { Observation, RecordedCall } from '../observation.js';
import { fail, pending, type CheckOutcome, type Evidence } from '../types.js';

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

/** Evidence of the call a graded step needs, or of its absence so far. */
export function stepEvidence(step: string, c: RecordedCall | undefined, expected = 'seen'): Evidence {
  return c ? callEvidence(step, c) : { step, ok: false, expected, actual: 'not seen yet' };
}

/** Steps still missing are awaited until the observer's deadline, then they fail. */
export function missingSteps(obs: Observation, evidence: Evidence[]): CheckOutcome {
  const missing = evidence.filter((e) => !e.ok).map((e) => e.step).join('; ');
  return expired(obs) ? fail(`missing: ${missing}`, evidence) : pending(`waiting for: ${missing}`, evidence);
}

/** Calls matching a method and a path pattern (`/orders/*\/ack`, `*` within one segment). */
export function callsTo(obs: Observation, method: string, pattern: string): RecordedCall[] {
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
