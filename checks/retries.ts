import type { Check } from './check.js';
import type { Order } from '../src/contract/orders.js';
import { callEvidence, expired, ok2xx, seconds } from './internal/calls.js';
import { describeError, EvidenceLog, type Answer } from './internal/evidence.js';
import { ensureMe } from './internal/setup.js';
import type { InjectedFault, Observation } from '../src/contract/observation.js';
import { fail, pass, pending, skip, type CheckOutcome, type Evidence } from './types.js';

/** Clock slack allowed when comparing a retry's wait with Retry-After (timer and network jitter). */
const WAIT_SLACK_MS = 50;

/** The wait between an answer and the next attempt's start, in ms. */
const gap = (a: Answer, b: Answer) => b.at - b.durationMs - a.at;

/** Judges a retried call from the client's answers: same key, waited Retry-After, then success. */
function judgeAnswers(log: EvidenceLog, label: string, answers: Answer[], status: number, retryAfter: number): boolean {
  const [first, second] = answers;
  if (!first || first.status !== status || !second) return log.note(`${label}: retried`, false, `${status}, then a retry`, answers.map((a) => a.status).join(', ') || 'no answer');
  const sameKey = first.idempotencyKey !== null && first.idempotencyKey === second.idempotencyKey;
  const waited = gap(first, second);
  const ok = sameKey && waited >= retryAfter * 1000 - WAIT_SLACK_MS && second.status >= 200 && second.status < 300;
  return log.note(`${label}: retry`, ok, `same Idempotency-Key after ≥ ${retryAfter} s, then 2xx`, `${sameKey ? 'same key' : 'another key'}, after ${seconds(waited)}, answered ${second.status}`);
}

async function runOnEmulator(ctx: Parameters<Check['run']>[0]): Promise<CheckOutcome> {
  const log = new EvidenceLog(ctx.signal);
  const me = await ensureMe(ctx, log);
  if (typeof me === 'string') return fail(me, log.items);
  let x: Order;
  let y: Order;
  try {
    x = await ctx.control!.simulateOrder({ store_id: me.store.id, scenario: 'delivery' });
    y = await ctx.control!.simulateOrder({ store_id: me.store.id, scenario: 'delivery' });
  } catch (error) {
    return fail(`the simulator refused an order: ${(error as Error).message}`, log.items);
  }
  ctx.state.armedFaults = new Set([`/orders/${x.id}/ack`, `/orders/${y.id}/status`]);
  await ctx.control!.addFault({ method: 'POST', path: `${ctx.basePath}/orders/${x.id}/ack`, status: 503, retry_after: 1, times: 1 });
  await ctx.control!.addFault({ method: 'POST', path: `${ctx.basePath}/orders/${y.id}/status`, status: 429, retry_after: 1, times: 1 });
  // The two retried calls run side by side: each waits its own Retry-After.
  const [ack, accept] = await Promise.all([
    log.call('ack behind an injected 503', (o) => ctx.client.orders.ack(x.id, { external_id: `mkh-${ctx.runId}-R` }, o)),
    log.call('accept behind an injected 429', (o) => ctx.client.orders.setStatus(y.id, { status: 'accepted', estimated_minutes: 20 }, o)),
  ]);
  const ackOk = judgeAnswers(log, '503 with Retry-After 1', ack.answers, 503, 1);
  const acceptOk = judgeAnswers(log, '429 with Retry-After 1', accept.answers, 429, 1);
  if (!ack.ok) return fail(`the retried ack failed: ${describeError(ack.error)}`, log.items);
  if (!accept.ok) return fail(`the retried status change failed: ${describeError(accept.error)}`, log.items);
  const [ackedX, acceptedY] = await Promise.all([
    log.call('GET the acknowledged order', (o) => ctx.client.orders.get(x.id, o)),
    log.call('GET the accepted order', (o) => ctx.client.orders.get(y.id, o)),
  ]);
  if (!ackedX.ok) return fail(`GET /orders/{id} failed: ${describeError(ackedX.error)}`, log.items);
  if (!acceptedY.ok) return fail(`GET /orders/{id} failed: ${describeError(acceptedY.error)}`, log.items);
  const ackStatus = ackedX.value.integration.ack_status;
  const accepted = acceptedY.value.status_history.filter((h) => h.status === 'accepted').length;
  const onceOk = log.note('effect once', ackStatus === 'acknowledged' && accepted === 1, 'acknowledged; one accepted entry in status_history', `${ackStatus}; ${accepted} accepted entr${accepted === 1 ? 'y' : 'ies'}`);
  if (!ackOk || !acceptOk || !onceOk) return fail('a retry did not keep its Idempotency-Key, did not wait for Retry-After, or applied twice', log.items);
  return pass('the 503 and the 429 were each retried once with the same Idempotency-Key after Retry-After, and applied once', log.items);
}

/** The observer's judgement of one injected fault. */
function judgeFault(obs: Observation, f: InjectedFault, evidence: Evidence[]): boolean | null | string {
  const call = obs.calls.find((c) => c.seq === f.call_seq);
  if (!call) {
    evidence.push({ step: `injected ${f.status}`, ok: false, expected: 'the integration\'s next idempotent write', actual: 'no idempotent write yet' });
    return null;
  }
  evidence.push(callEvidence(`injected ${f.status} (Retry-After ${f.retry_after})`, call, true));
  const next = obs.calls.find((c) => c.seq > call.seq && c.method === call.method && c.path === call.path);
  if (!next) {
    evidence.push({ step: `retry after ${f.status}`, ok: false, expected: 'a retry with the same key', actual: 'none yet' });
    return null;
  }
  const waited = next.at - (call.at + call.duration_ms);
  const sameKey = next.idempotency_key === call.idempotency_key;
  const ok = sameKey && waited >= f.retry_after * 1000 - WAIT_SLACK_MS;
  evidence.push({ ...callEvidence(`retry after ${f.status}`, next, ok), expected: `same Idempotency-Key after ≥ ${f.retry_after} s`, actual: `${sameKey ? 'same key' : `another key (${next.idempotency_key ?? 'none'})`}, after ${seconds(waited)}` });
  if (!sameKey) return `the retry after the ${f.status} used another Idempotency-Key`;
  if (!ok) return `the retry after the ${f.status} came ${seconds(waited)} later, before Retry-After (${f.retry_after} s)`;
  // The effect once: the request finally succeeded under its one key (a repeat with the same key is
  // a replay, never a second effect; the injected answers never ran).
  const done = obs.calls.find((c) => c.seq > call.seq && c.method === call.method && c.path === call.path && c.idempotency_key === call.idempotency_key && ok2xx(c));
  if (done && done !== next) evidence.push(callEvidence(`success after ${f.status}`, done));
  return done ? true : null;
}

export const retries: Check = {
  id: 'retries',
  title: 'Retries: 503 and 429 with Retry-After, same Idempotency-Key, effect once',
  area: 'resilience',
  mandatory: true,
  rule: 'Errors, retry guidance and Idempotency rules: retry after 429/5xx honouring Retry-After, with the same Idempotency-Key, so the effect happens once (5xx and 429 answers are not stored).',

  async run(ctx) {
    if (!ctx.control) return skip('needs injected faults, which only the emulator (or the real test environment\'s own homologation) provides');
    return runOnEmulator(ctx);
  },

  grade(obs) {
    const evidence: Evidence[] = [];
    // No fault injected yet (no session): nothing to judge.
    let undecided = obs.session.faults.length === 0;
    for (const f of obs.session.faults) {
      const verdict = judgeFault(obs, f, evidence);
      if (typeof verdict === 'string') return fail(verdict, evidence);
      if (verdict === null) undecided = true;
    }
    if (!undecided) return pass('the injected 503 and 429 were retried with the same Idempotency-Key after Retry-After; the effect happened once', evidence);
    return expired(obs) ? fail('the injected faults were not both retried before the timeout', evidence) : pending('waiting for the integration\'s idempotent writes and their retries', evidence);
  },
};
