import type { Observation, ProbeKind, ProbeRecord } from '../../src/contract/observation.js';

// What the session's probes and regular deliveries say about the integration's webhook receiver,
// shared by signature_rejection (how it verifies) and order_reception (whether it receives at all).

export const PROBE_KINDS: readonly ProbeKind[] = ['bad_signature', 'stale_timestamp', 'unknown_secret', 'reserialised', 'duplicate', 'out_of_order'];

/** The probes a correct receiver accepts (2xx): valid deliveries. */
export const ACCEPTED_KINDS: readonly ProbeKind[] = ['reserialised', 'duplicate', 'out_of_order'];

const is2xx = (status: number | null) => status !== null && status >= 200 && status < 300;

/**
 * Each kind's probe as the session last sent it: the latest attempt that got an answer, else the
 * latest attempt (a probe with no answer is sent again while the receiver may be restarting).
 */
export function latestProbes(obs: Pick<Observation, 'session'>): Map<ProbeKind, ProbeRecord> {
  const out = new Map<ProbeKind, ProbeRecord>();
  for (const p of obs.session.probes) {
    const held = out.get(p.kind);
    if (!held || p.status !== null || held.status === null) out.set(p.kind, p);
  }
  return out;
}

/** The valid probes as last sent (reserialised, duplicate, out of order). */
export function acceptanceProbes(obs: Pick<Observation, 'session'>): ProbeRecord[] {
  const latest = latestProbes(obs);
  return ACCEPTED_KINDS.map((k) => latest.get(k)).filter((p): p is ProbeRecord => p !== undefined);
}

/**
 * The receiver answers, but refuses every valid delivery: the scenario orders' deliveries were
 * answered non-2xx and so were the valid probes (DESIGN: one fault, one check — order_reception).
 */
export function receiverRefusesAll(obs: Pick<Observation, 'session'>): boolean {
  const s = obs.session;
  const deliveries = s.deliveries.filter((d) => s.orders.some((o) => o.order_id === d.order_id));
  const valid = acceptanceProbes(obs);
  return (
    valid.length > 0 &&
    valid.every((p) => p.status !== null && !is2xx(p.status)) &&
    deliveries.every((d) => d.succeeded_at === null) &&
    deliveries.some((d) => d.last_response_status !== null)
  );
}

/**
 * Whether receiverRefusesAll may still turn true: nothing valid was accepted so far, and a scenario
 * order's delivery has no answer yet (being sent, or waiting for its next attempt). Until then a valid
 * probe answered non-2xx may be the receiver refusing everything, which is order_reception's to grade.
 */
export function mayYetRefuseAll(obs: Pick<Observation, 'session'>): boolean {
  const s = obs.session;
  const deliveries = s.deliveries.filter((d) => s.orders.some((o) => o.order_id === d.order_id));
  return (
    !acceptanceProbes(obs).some((p) => is2xx(p.status)) &&
    deliveries.every((d) => d.succeeded_at === null) &&
    deliveries.some((d) => d.status === 'delivering' || (d.status === 'pending' && d.last_response_status === null))
  );
}

/** The receiver never answered at all: no delivery succeeded or was answered, no probe was answered. */
export function receiverSilent(obs: Pick<Observation, 'session'>): boolean {
  const s = obs.session;
  return s.probes.length > 0 && s.probes.every((p) => p.status === null) && s.deliveries.every((d) => d.succeeded_at === null && d.last_response_status === null);
}
