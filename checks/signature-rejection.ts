import { randomBytes } from 'node:crypto';
import { API_VERSION } from '../src/contract/limits.js';
import type { Check } from './check.js';
import { expired, ok2xx, orderOf, waitingForOrders } from './internal/calls.js';
import { EvidenceLog } from './internal/evidence.js';
import { postLocalProbe, reformatted, STALE_SECONDS, randomSecret, type LocalProbe } from './internal/probes.js';
import { ensureReceiver } from './internal/setup.js';
import type { Observation, ProbeKind, ProbeRecord, RecordedCall } from '../src/contract/observation.js';
import { ACCEPTED_KINDS, latestProbes, mayYetRefuseAll, PROBE_KINDS, receiverRefusesAll, receiverSilent } from './internal/probe-verdicts.js';
import { fail, pass, pending, skip, type Evidence } from './types.js';

/** How long after the duplicate and the out-of-order probes the observer watches the integration's writes, at least and at most. */
export const SETTLE_MS = 3000;
export const SETTLE_MAX_MS = 10_000;

const refused = (status: number | null) => status !== null && (status < 200 || status >= 300);
const accepted = (status: number | null) => status !== null && status >= 200 && status < 300;

const EXPECT: Record<ProbeKind, { expected: string; ok: (s: number | null) => boolean; title: string }> = {
  bad_signature: { expected: 'refused (non-2xx)', ok: refused, title: 'bad signature' },
  stale_timestamp: { expected: 'refused (non-2xx)', ok: refused, title: `timestamp ${STALE_SECONDS} s old` },
  unknown_secret: { expected: 'refused (non-2xx)', ok: refused, title: 'signed with an unknown secret' },
  reserialised: { expected: 'accepted (2xx)', ok: accepted, title: 'valid, unusual JSON formatting' },
  duplicate: { expected: 'accepted (2xx), processed once', ok: accepted, title: 'duplicated event' },
  out_of_order: { expected: 'accepted (2xx), the older version not imported again', ok: accepted, title: 'older version after a newer one' },
};

const fakeId = (prefix: string) => `${prefix}${randomBytes(13).toString('hex').toUpperCase().slice(0, 26)}`;

function envelope(id: string, type: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id, type, api_version: API_VERSION, created_at: new Date().toISOString(), store_id: 'str_homologation', integration_id: 'int_homologation', data });
}

/**
 * How long the ERP takes to act on what its receiver took (a queue works seconds later): the
 * median, over the session's orders, of the time from the answered order.created delivery to the
 * ERP's first call about the order. The duplicate and out-of-order probes are watched three times
 * that from their answers, between SETTLE_MS and SETTLE_MAX_MS (3 s: under load, an ERP that acted
 * on the older version in 2 s was let through by the 1.5 s of before).
 */
export function settleMs(obs: Observation): number {
  const lags: number[] = [];
  for (const o of obs.session.orders) {
    const d = obs.session.deliveries.find((x) => x.order_id === o.order_id && x.event_type === 'order.created' && x.answered_at !== null);
    const first = d && obs.calls.find((c) => c.method === 'POST' && c.path.startsWith(`/orders/${o.order_id}/`) && c.at >= d.answered_at!);
    if (first) lags.push(first.at - d!.answered_at!);
  }
  lags.sort((a, b) => a - b);
  const median = lags.length ? lags[Math.floor(lags.length / 2)]! : 0;
  return Math.min(SETTLE_MAX_MS, Math.max(SETTLE_MS, 3 * median));
}

const IMPORTS = ['/ack', '/import-failure'];

/** The observer's judgement of one probe, with the integration's later writes where they matter (null: still watching). */
function judgeProbe(obs: Observation, p: ProbeRecord, probeOrder: string | null, settle: number): { ok: boolean | null; actual: string } {
  const rule = EXPECT[p.kind];
  const answer = p.status === null ? `no answer (${p.error ?? 'error'})` : String(p.status);
  if (p.status === null) return { ok: expired(obs) ? false : null, actual: answer };
  if (!rule.ok(p.status)) return { ok: false, actual: answer };
  if (p.kind !== 'duplicate' && p.kind !== 'out_of_order') return { ok: true, actual: answer };
  if (!probeOrder) return { ok: false, actual: `${answer}; no probe order` };
  const imports = obs.calls.filter((c) => c.method === 'POST' && orderOf(c) === probeOrder && IMPORTS.some((k) => c.path.endsWith(k)));
  const writes = imports.filter((c) => !c.injected);
  if (p.kind === 'duplicate') {
    // Processing twice shows as two acks (or two import failures) under different keys; an
    // import-failure followed by an ack is one processing of an order with an unmapped product.
    // What comes after the out-of-order probe is that probe's to judge.
    // The out-of-order probe counts from the moment it began to be sent, before its answer is in.
    const sending = obs.session.sending?.kind === 'out_of_order' ? obs.session.sending.sent_at : undefined;
    const next = latestProbes(obs).get('out_of_order')?.sent_at ?? sending ?? Number.POSITIVE_INFINITY;
    for (const kind of IMPORTS) {
      const keys = new Set(writes.filter((c) => c.path.endsWith(kind) && c.at < next).map((c) => c.idempotency_key ?? c.body_sha256));
      if (keys.size > 1) return { ok: false, actual: `${answer}; processed ${keys.size} times (${kind.slice(1)} sent under ${keys.size} different keys)` };
    }
  } else {
    // DESIGN: only an import or ack done again counts as acting on the older version (status calls on
    // the probe order are graded by statuses alone). An import is one key: its retries keep it, so a
    // write under a key begun before the probe is not new work, and the first import done late (a
    // queue, or a retry still waiting out Retry-After when the probe came) is not a second one. A
    // write after the probe under a new key, once another key of that kind was begun before it and
    // succeeded, is the import done again; an ack after an import-failure is the recovery the spec allows.
    // A write without an Idempotency-Key cannot be told from a retry: all such writes are one key.
    const keyOf = (c: RecordedCall) => `${IMPORTS.find((k) => c.path.endsWith(k))} ${c.idempotency_key ?? '(none)'}`;
    const beforeKeys = new Set(imports.filter((c) => c.at < p.sent_at).map(keyOf));
    const begunAt = new Map<string, number>();
    for (const c of imports) begunAt.set(keyOf(c), Math.min(begunAt.get(keyOf(c)) ?? c.at, c.at));
    const succeeded = new Set(writes.filter(ok2xx).map(keyOf));
    const sameKind = (a: string, b: string) => a.split(' ')[0] === b.split(' ')[0];
    const importedBefore = (c: RecordedCall) => [...succeeded].some((k) => k !== keyOf(c) && sameKind(k, keyOf(c)) && begunAt.get(k)! < c.at);
    const again = writes.find((c) => c.at >= p.sent_at && !beforeKeys.has(keyOf(c)) && importedBefore(c));
    if (again) return { ok: false, actual: `${answer}; then ${again.method} ${again.path} (${again.request_id}): imported the older version again` };
  }
  // Watched from the receiver's answer: the ERP acts on a probe only once it has it (a receiver that
  // is slow to answer, or a busy machine, must not shorten the watch into a false pass).
  return obs.now - (p.sent_at + p.duration_ms) >= settle ? { ok: true, actual: answer } : { ok: null, actual: `${answer}; its later calls are still watched` };
}

export const signatureRejection: Check = {
  id: 'signature_rejection',
  title: 'Robust reception: signatures, timestamps, raw body, duplicates, order',
  area: 'webhooks',
  mandatory: true,
  rule: 'Webhook delivery, receiver rules 1–4 and Events: verify HMAC-SHA256 over the raw body in constant time, refuse timestamps over 300 s away, discard duplicates by event id, keep the newer order version by updated_at.',

  async run(ctx) {
    const log = new EvidenceLog(ctx.signal);
    const receiver = await ensureReceiver(ctx, log);
    if (typeof receiver === 'string') return fail(receiver, log.items);
    const secrets = receiver.secrets;
    const test = (): Omit<LocalProbe, 'secrets' | 'skewSeconds' | 'corrupt'> => {
      const id = fakeId('evt_');
      return { eventId: id, eventType: 'webhook.test', body: envelope(id, 'webhook.test', { probe: 'homologation', note: 'Señal / ñandú' }) };
    };
    const probe = async (kind: ProbeKind, p: LocalProbe) => {
      const status = await postLocalProbe(receiver.url, p);
      return log.note(`probe: ${EXPECT[kind].title}`, EXPECT[kind].ok(status), EXPECT[kind].expected, status === null ? 'no answer' : String(status), { status });
    };
    const plain = test();
    await probe('bad_signature', { ...test(), secrets, skewSeconds: 0, corrupt: true });
    await probe('stale_timestamp', { ...test(), secrets, skewSeconds: -STALE_SECONDS, corrupt: false });
    await probe('unknown_secret', { ...test(), secrets: [randomSecret()], skewSeconds: 0, corrupt: false });
    await probe('reserialised', { ...plain, body: reformatted(plain.body), secrets, skewSeconds: 0, corrupt: false });
    // A duplicate and an out-of-order pair about a made-up order: only the receiver's bookkeeping is at stake.
    const orderId = fakeId('ord_');
    const version = (at: string, status: string) => ({ order: { id: orderId, status, updated_at: at } });
    const older = '2026-01-01T10:00:00.000-03:00';
    const newer = '2026-01-01T10:05:00.000-03:00';
    const dupId = fakeId('evt_');
    const dup: LocalProbe = { eventId: dupId, eventType: 'order.status_changed', body: envelope(dupId, 'order.status_changed', version(newer, 'cancelled')), secrets, skewSeconds: 0, corrupt: false };
    await probe('duplicate', dup);
    await probe('duplicate', dup);
    const processed = receiver.events.filter((e) => e.id === dupId).length;
    log.note('duplicate processed once', processed === 1, '1 processing', `${processed}`);
    const oldId = fakeId('evt_');
    await probe('out_of_order', { eventId: oldId, eventType: 'order.created', body: envelope(oldId, 'order.created', version(older, 'pending')), secrets, skewSeconds: 0, corrupt: false });
    const kept = receiver.orders.get(orderId)?.updated_at;
    log.note('newer version kept', kept === newer, newer, kept ?? 'none');
    const bad = log.items.filter((e) => !e.ok && e.step !== 'PUT /webhook (reference receiver)');
    if (bad.length) return fail(`the receiver got ${bad.length} probe(s) wrong: ${bad.map((e) => e.step.replace('probe: ', '')).join(', ')}`, log.items);
    return pass('bad, stale and unknown-secret deliveries refused; unusual JSON accepted; duplicate processed once; older version dropped', log.items);
  },

  grade(obs) {
    const s = obs.session;
    const waiting = waitingForOrders(obs);
    if (waiting) return waiting;
    // DESIGN: feed-only intake — no webhook when the session made its orders: nothing to probe.
    if (s.webhook === false) return pass('not applicable: no webhook, orders read from the feed', [{ step: 'intake', ok: true, expected: 'a webhook to probe, or none (feed)', actual: 'no active webhook when the session made its orders' }]);
    const probeOrder = s.orders.find((o) => o.scenario === 'probe')?.order_id ?? null;
    const latest = latestProbes(obs);
    // One fault, one check: a receiver that refuses everything, or never answers, is order_reception's.
    const refusesAll = receiverRefusesAll(obs);
    if (receiverSilent(obs) && (s.finished || expired(obs))) return skip('not graded: the webhook receiver never answered (see order_reception)');
    const settle = settleMs(obs);
    const evidence: Evidence[] = [];
    const wrong: Evidence[] = [];
    const watched: { e: Evidence; answer: string }[] = [];
    let undecided = false;
    for (const kind of PROBE_KINDS) {
      const step = `probe: ${EXPECT[kind].title}`;
      if (refusesAll && ACCEPTED_KINDS.includes(kind)) {
        evidence.push({ step, ok: true, expected: EXPECT[kind].expected, actual: 'graded in order_reception: the receiver refused every valid delivery' });
        continue;
      }
      const p = latest.get(kind);
      if (!p) {
        undecided = true;
        evidence.push({ step, ok: false, expected: EXPECT[kind].expected, actual: 'not sent' });
        continue;
      }
      // A valid probe refused while the orders' deliveries have no answer yet: it may be the receiver
      // refusing everything (order_reception's, one fault, one check), known once they are answered.
      if (ACCEPTED_KINDS.includes(kind) && !refusesAll && p.status !== null && (p.status < 200 || p.status >= 300) && mayYetRefuseAll(obs) && !s.finished && !expired(obs)) {
        undecided = true;
        const e: Evidence = { step, ok: false, status: p.status, duration_ms: p.duration_ms, expected: EXPECT[kind].expected, actual: `${p.status}; graded once the orders' deliveries are answered (a receiver that refuses every delivery is order_reception's)` };
        watched.push({ e, answer: String(p.status) });
        evidence.push(e);
        continue;
      }
      const j = judgeProbe(obs, p, probeOrder, settle);
      const e: Evidence = { step, ok: j.ok === true, status: p.status, duration_ms: p.duration_ms, expected: EXPECT[kind].expected, actual: j.actual };
      if (j.ok === null) (undecided = true), watched.push({ e, answer: p.status === null ? 'no answer' : String(p.status) });
      evidence.push(e);
      if (j.ok === false) wrong.push(e);
    }
    if (wrong.length) {
      // A decided report says nothing is still watched: what was, is left ungraded.
      for (const w of watched) w.e.actual = `${w.answer}; not graded further (the check failed on another probe)`;
      return fail(`the receiver got ${wrong.length} probe(s) wrong: ${wrong.map((e) => e.step.replace('probe: ', '')).join(', ')}`, evidence);
    }
    if (!undecided) {
      const graded = refusesAll ? 'bad, stale and unknown-secret deliveries refused (the valid ones are graded in order_reception)' : 'bad, stale and unknown-secret deliveries refused; unusual JSON accepted; duplicate processed once; older version not imported again';
      return pass(graded, evidence);
    }
    if (s.finished && PROBE_KINDS.some((k) => !latest.has(k))) return fail(`probes not sent: ${s.problems.join('; ') || 'the session could not send them'}`, evidence);
    // Watching settles from the probes' answers: only what is missing at the deadline fails.
    return expired(obs) ? fail('the probes were not all answered before the timeout', evidence) : pending('probes sent, watching the answers and later calls', evidence);
  },
};
