import { randomBytes } from 'node:crypto';
import { API_VERSION } from '../src/contract/limits.js';
import type { Check } from './check.js';
import { expired, orderOf } from './internal/calls.js';
import { EvidenceLog } from './internal/evidence.js';
import { postLocalProbe, reformatted, STALE_SECONDS, randomSecret, type LocalProbe } from './internal/probes.js';
import { ensureReceiver } from './internal/setup.js';
import type { Observation, ProbeKind, ProbeRecord } from '../src/contract/observation.js';
import { fail, pass, pending, type Evidence } from './types.js';

/** How long after the duplicate and the out-of-order probes the observer watches the integration's writes. */
export const SETTLE_MS = 1500;

const refused = (status: number | null) => status !== null && (status < 200 || status >= 300);
const accepted = (status: number | null) => status !== null && status >= 200 && status < 300;

const EXPECT: Record<ProbeKind, { expected: string; ok: (s: number | null) => boolean; title: string }> = {
  bad_signature: { expected: 'refused (non-2xx)', ok: refused, title: 'bad signature' },
  stale_timestamp: { expected: 'refused (non-2xx)', ok: refused, title: `timestamp ${STALE_SECONDS} s old` },
  unknown_secret: { expected: 'refused (non-2xx)', ok: refused, title: 'signed with an unknown secret' },
  reserialised: { expected: 'accepted (2xx)', ok: accepted, title: 'valid, unusual JSON formatting' },
  duplicate: { expected: 'accepted (2xx), processed once', ok: accepted, title: 'duplicated event' },
  out_of_order: { expected: 'accepted (2xx), older version dropped', ok: accepted, title: 'older version after a newer one' },
};

const fakeId = (prefix: string) => `${prefix}${randomBytes(13).toString('hex').toUpperCase().slice(0, 26)}`;

function envelope(id: string, type: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id, type, api_version: API_VERSION, created_at: new Date().toISOString(), store_id: 'str_homologation', integration_id: 'int_homologation', data });
}

/** The observer's judgement of one probe, with the integration's later writes where they matter. */
function judgeProbe(obs: Observation, p: ProbeRecord, probeOrder: string | null): { ok: boolean | null; actual: string } {
  const rule = EXPECT[p.kind];
  const answer = p.status === null ? `no answer (${p.error ?? 'error'})` : String(p.status);
  if (!rule.ok(p.status)) return { ok: false, actual: answer };
  if (p.kind !== 'duplicate' && p.kind !== 'out_of_order') return { ok: true, actual: answer };
  if (!probeOrder) return { ok: false, actual: `${answer}; no probe order` };
  const all = obs.calls.filter((c) => c.method === 'POST' && orderOf(c) === probeOrder && c.path.startsWith('/orders/'));
  const writes = all.filter((c) => !c.injected);
  if (p.kind === 'duplicate') {
    // Processing twice shows as two acks (or two import failures) under different keys; an
    // import-failure followed by an ack is one processing of an order with an unmapped product.
    for (const kind of ['/ack', '/import-failure']) {
      const keys = new Set(writes.filter((c) => c.path.endsWith(kind)).map((c) => c.idempotency_key ?? c.body_sha256));
      if (keys.size > 1) return { ok: false, actual: `${answer}; processed ${keys.size} times (${kind.slice(1)} sent under ${keys.size} different keys)` };
    }
  } else {
    // A retry of a write begun before the probe (an injected fault's, say) keeps its key: not new work.
    // An import the ERP had not done yet is late, not a second one: only an import done again counts.
    const before = all.filter((c) => c.at < p.sent_at);
    const keys = new Set(before.map((c) => c.idempotency_key));
    const importedBefore = before.some((c) => !c.injected && c.status >= 200 && c.status < 300 && !c.path.endsWith('/status'));
    const acted = writes.filter((c) => c.at >= p.sent_at && (c.path.endsWith('/status') || (importedBefore && !keys.has(c.idempotency_key))));
    if (acted.length) return { ok: false, actual: `${answer}; then ${acted[0]!.method} ${acted[0]!.path}: acted on the older version` };
  }
  return obs.now - p.sent_at >= SETTLE_MS ? { ok: true, actual: answer } : { ok: null, actual: `${answer}; watching` };
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
    const webhookProblem = s.problems.find((p) => p.includes('webhook'));
    if (webhookProblem) return fail(webhookProblem, []);
    const probeOrder = s.orders.find((o) => o.scenario === 'probe')?.order_id ?? null;
    const evidence: Evidence[] = [];
    const wrong: Evidence[] = [];
    let undecided = false;
    for (const kind of Object.keys(EXPECT) as ProbeKind[]) {
      const p = s.probes.find((x) => x.kind === kind);
      if (!p) {
        undecided = true;
        evidence.push({ step: `probe: ${EXPECT[kind].title}`, ok: false, expected: EXPECT[kind].expected, actual: s.finished ? 'not sent' : 'not sent yet' });
        continue;
      }
      const j = judgeProbe(obs, p, probeOrder);
      if (j.ok === null) undecided = true;
      const e: Evidence = { step: `probe: ${EXPECT[kind].title}`, ok: j.ok === true, status: p.status, duration_ms: p.duration_ms, expected: EXPECT[kind].expected, actual: j.actual };
      evidence.push(e);
      if (j.ok === false) wrong.push(e);
    }
    if (wrong.length) return fail(`the receiver got ${wrong.length} probe(s) wrong: ${wrong.map((e) => e.step.replace('probe: ', '')).join(', ')}`, evidence);
    if (!undecided) return pass('bad, stale and unknown-secret deliveries refused; unusual JSON accepted; duplicate processed once; older version dropped', evidence);
    if (s.finished && s.probes.length < 6 && expired(obs)) return fail(`probes not sent: ${s.problems.join('; ') || 'unknown reason'}`, evidence);
    return expired(obs) ? fail('the probes were not all decided before the timeout', evidence) : pending('probes sent, watching the answers and later calls', evidence);
  },
};
