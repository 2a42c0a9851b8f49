import type { Check } from './check.js';
import type { Order } from '../src/contract/orders.js';
import { callEvidence, expired, ok2xx, seconds, waitingForOrders } from './internal/calls.js';
import { apiMeaning } from './internal/api-meaning.js';
import { describeError, EvidenceLog, type Answer } from './internal/evidence.js';
import { ensureMe } from './internal/setup.js';
import type { InjectedFault, Observation, RecordedCall } from '../src/contract/observation.js';
import { fail, pass, pending, skip, type CheckOutcome, type Evidence } from './types.js';

/** Clock slack allowed when comparing a retry's wait with Retry-After (timer and network jitter). */
const WAIT_SLACK_MS = 100;

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
    return fail(`the simulator refused an order: ${apiMeaning(error)}`, log.items);
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

/** The answers a write is retried after (the spec's Errors: 429 and 5xx). */
const RETRIED_STATUS = (status: number) => status === 429 || status >= 500;

/**
 * How many faults of one status the session injects at most: more when a measurement could not tell.
 * A measure is unsure only when the emulator's loop did not run around the retry's arrival, which
 * on a loaded machine comes in bursts: at a load near 20 on 2 cores (issue 27), 10 of 100 measured
 * retries of correct ERPs were unsure, six of them in one session, its first three of each status
 * (the loop read them 0.7 to 1.1 s late), one short of failing at the four it had then. An early
 * retry fails at its first sure measure whatever this is; only a correct ERP on a busy machine
 * needs the further tries.
 */
export const MAX_SAMPLES = 10;

/**
 * DESIGN: retry timing is measured from the moment the refused answer was sent to the moment the
 * retry's first bytes arrived. The emulator knows each within bounds: the answer was sent after its
 * request arrived (`at`) and by its `answered_at`; the retry's bytes arrived after `arrived_after`
 * and by `at` (emulator/homologation/arrival.ts). So the wait is at least and at most these.
 */
export function retryWait(refused: RecordedCall, retry: RecordedCall): { atLeast: number; atMost: number } {
  const sent = refused.answered_at ?? refused.at + refused.duration_ms;
  const after = retry.arrived_after ?? retry.at;
  return { atLeast: Math.max(0, after - sent), atMost: Math.max(0, retry.at - refused.at) };
}

type Sample = { verdict: 'waited' | 'early' | 'unsure' | 'new_key' | 'done'; evidence: Evidence[]; waited: string } | null;

/** One injected fault and what followed: null while its write or retry is still to come. */
function sample(obs: Observation, f: InjectedFault): Sample {
  const call = obs.calls.find((c) => c.seq === f.call_seq);
  if (!call) return null;
  const evidence: Evidence[] = [callEvidence(`injected ${f.status} (Retry-After ${f.retry_after})`, call, true)];
  // Its retry: the next call of the same method and path under its key, or under another key with
  // its body (a retry with a new key). Another write to that path at the same moment (the person's
  // move beside the ERP's own, issue 27) is a request of its own, not a retry of this one.
  const next = obs.calls.find((c) => c.seq > call.seq && c.method === call.method && c.path === call.path && (c.idempotency_key === call.idempotency_key || c.body_sha256 === call.body_sha256));
  if (!next) return { verdict: 'unsure', evidence: [...evidence, { step: `retry after ${f.status}`, ok: false, expected: 'a retry with the same key', actual: 'none' }], waited: '' };
  const { atLeast, atMost } = retryWait(call, next);
  const ra = f.retry_after * 1000;
  const sameKey = next.idempotency_key === call.idempotency_key;
  const verdict = !sameKey ? 'new_key' : atMost < ra ? 'early' : atLeast >= ra - WAIT_SLACK_MS ? 'waited' : 'unsure';
  // An early retry's upper bound is below Retry-After, even where one decimal would round it up to it (0.96 s).
  const upper = verdict === 'early' && seconds(atMost) === seconds(ra) ? `under ${seconds(ra)}` : seconds(atMost);
  const waited = seconds(atLeast) === upper ? upper : `${seconds(atLeast)} to ${upper}`;
  evidence.push({
    ...callEvidence(`retry after ${f.status}`, next, verdict === 'waited'),
    expected: `same Idempotency-Key, no sooner than ${f.retry_after} s after the ${f.status} was sent`,
    actual: `${sameKey ? 'same key' : `another key (${next.idempotency_key ?? 'none'})`}, its first bytes ${waited} after the ${f.status}`,
  });
  if (verdict !== 'waited') return { verdict, evidence, waited };
  // The effect once: the request was finally answered under its one key (a repeat with the same key
  // is a replay, never a second effect; the injected answers never ran). A final refusal counts too:
  // the order may have changed during the wait (the session cancels its probe order), and a retry
  // refused with 409 was still the right retry; only a 429 or 5xx leaves it to be retried again.
  const done = obs.calls.find((c) => c.seq > call.seq && c.method === call.method && c.path === call.path && c.idempotency_key === call.idempotency_key && !RETRIED_STATUS(c.status));
  if (done && done !== next) evidence.push(callEvidence(`${ok2xx(done) ? 'success' : 'final answer'} after ${f.status}`, done, true));
  return { verdict: done ? 'waited' : 'done', evidence, waited };
}

/**
 * The statuses whose every retry so far came while the emulator was too busy to tell whether it
 * waited (none still to come): the session injects one more fault of each, up to MAX_SAMPLES.
 */
export function unsureStatuses(obs: Observation): (503 | 429)[] {
  return ([503, 429] as const).filter((status) => {
    const mine = obs.session.faults.filter((f) => f.status === status);
    const samples = mine.map((f) => sample(obs, f));
    return mine.length > 0 && mine.length < MAX_SAMPLES && samples.every((s) => s?.verdict === 'unsure' && s.waited !== '');
  });
}

/**
 * The verdict of one status's faults (the first, and the ones injected again when a measurement
 * could not tell): a retry with another key or before Retry-After fails; one shown to have waited
 * passes; true when passed, a reason when failed, null while undecided.
 */
function judgeStatus(obs: Observation, faults: InjectedFault[], evidence: Evidence[]): true | string | null {
  const samples = faults.map((f) => sample(obs, f));
  for (const s of samples) if (s) evidence.push(...s.evidence);
  const status = faults[0]!.status;
  const retryAfter = faults[0]!.retry_after;
  if (samples.some((s) => s?.verdict === 'new_key')) return `the retry after the ${status} used another Idempotency-Key`;
  const early = samples.find((s) => s?.verdict === 'early');
  if (early) return `the retry after the ${status} came ${early.waited} after the refused answer, before Retry-After (${retryAfter} s)`;
  if (samples.some((s) => s?.verdict === 'waited')) return true;
  const unsure = samples.filter((s) => s?.verdict === 'unsure' && s.waited !== '');
  // The emulator was too busy to tell (its loop read the retry late): the session measures again.
  if (unsure.length >= MAX_SAMPLES) return `the retry after the ${status} could not be shown to wait Retry-After (${retryAfter} s) in ${unsure.length} tries: its first bytes came ${unsure.map((u) => u!.waited).join(', ')} after the refused answer`;
  return null;
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
    const faults = obs.session.faults;
    // No fault injected (no session): nothing to judge.
    let undecided = faults.length === 0;
    for (const status of [503, 429] as const) {
      const mine = faults.filter((f) => f.status === status);
      if (!mine.length) continue;
      const verdict = judgeStatus(obs, mine, evidence);
      if (typeof verdict === 'string') return fail(verdict, evidence);
      if (verdict === null) undecided = true;
    }
    if (!undecided) return pass('the injected 503 and 429 were retried with the same Idempotency-Key, no sooner than Retry-After after the refused answer was sent; the effect happened once', evidence);
    const waiting = waitingForOrders(obs);
    if (waiting && !faults.some((f) => f.call_seq !== null)) return waiting;
    if (!expired(obs)) return pending('waiting for the integration\'s idempotent writes and their retries', evidence);
    const taken = faults.filter((f) => f.call_seq !== null).length;
    return fail(taken === 0 ? 'no idempotent write (a write with an Idempotency-Key) came, so the injected 503 and 429 never answered one' : 'the injected faults were not both retried and the request then succeeded', evidence);
  },
};
