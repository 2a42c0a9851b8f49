import { describe, expect, it } from 'vitest';
import { catalog } from '../../checks/catalog.js';
import { importCheck } from '../../checks/import.js';
import { retries } from '../../checks/retries.js';
import { signatureRejection, SETTLE_MS } from '../../checks/signature-rejection.js';
import { movesForward, statuses } from '../../checks/statuses.js';
import { connection } from '../../checks/connection.js';
import type { ProbeRecord, RecordedCall } from '../../src/contract/observation.js';
import { call, LATE, observation, T0 } from './observation-fixture.js';

describe('statuses: a forward move of an accepted order', () => {
  it.each([
    ['accepted', 'ready', true],
    ['accepted', 'completed', true],
    ['accepted', 'preparing', true],
    ['preparing', 'out_for_delivery', true],
    ['pending', 'accepted', false],
    ['pending', 'preparing', false],
    ['ready', 'accepted', false],
    [null, 'completed', false],
  ])('%s → %s moves forward: %s', (from, to, expected) => {
    expect(movesForward(from, to)).toBe(expected);
  });
});

describe('catalog: timing', () => {
  it('stays pending while something is missing and fails at the deadline', () => {
    const calls = [call('PUT', '/catalog/categories/c', 201)];
    expect(catalog.grade(observation(calls)).status).toBe('pending');
    expect(catalog.grade(observation(calls, {}, LATE)).status).toBe('fail');
  });
});

describe('connection', () => {
  it('names a missing scope', () => {
    const obs = observation([call('GET', '/me', 200)]);
    obs.scopes = ['orders:read'];
    const outcome = connection.grade(obs);
    expect(outcome.status).toBe('fail');
    expect(outcome.reason).toContain('catalog:write');
  });
});

describe('retries: judged from the observed calls around each injected fault', () => {
  function retried(retryKey: string, gapMs: number, retryStatus = 200) {
    const first = call('POST', '/orders/o1/ack', 503, { idempotency_key: 'k1', injected: true, code: 'maintenance' });
    // A retry sends the same request: the same body, whatever its key.
    const retry = call('POST', '/orders/o1/ack', retryStatus, { idempotency_key: retryKey, body_sha256: first.body_sha256, at: first.at + first.duration_ms + gapMs });
    return observation([first, retry], { faults: [{ status: 503, retry_after: 1, call_seq: first.seq }] });
  }
  it('passes a retry with the same key after Retry-After', () => {
    expect(retries.grade(retried('k1', 1000)).status).toBe('pass');
  });
  it('fails a retry with another key', () => {
    const outcome = retries.grade(retried('k2', 1000));
    expect(outcome).toMatchObject({ status: 'fail', reason: expect.stringContaining('another Idempotency-Key') });
  });
  it('fails a retry before Retry-After', () => {
    expect(retries.grade(retried('k1', 200)).reason).toContain('before Retry-After');
  });
  it('is pending until the fault is taken', () => {
    expect(retries.grade(observation([], { faults: [{ status: 429, retry_after: 1, call_seq: null }] })).status).toBe('pending');
  });
});

describe('import: a refusal is never repeated unchanged', () => {
  it('fails when an external_id_conflict is sent again with the same body, naming both calls', () => {
    const conflict = call('POST', '/orders/o1/ack', 409, { code: 'external_id_conflict', idempotency_key: 'a', body_sha256: 'B', facts: { external_id: 'B' } });
    const again = call('POST', '/orders/o1/ack', 409, { code: 'external_id_conflict', idempotency_key: 'b', body_sha256: 'B', facts: { external_id: 'B' } });
    const outcome = importCheck.grade(observation([conflict, again]));
    expect(outcome.status).toBe('fail');
    expect(outcome.reason).toContain(`POST /orders/o1/ack (${again.request_id})`);
    expect(outcome.reason).toContain(conflict.request_id);
  });
  it('does not fail a 409 external_id_conflict that is not sent again', () => {
    const conflict = call('POST', '/orders/o1/ack', 409, { code: 'external_id_conflict', facts: { external_id: 'B' } });
    expect(importCheck.grade(observation([conflict])).status).toBe('pending');
  });
  it('fails when an ack refused with another 4xx is sent again unchanged, but not after a 429', () => {
    const refused = (status: number, code: string) => [
      call('POST', '/orders/o1/ack', status, { code, idempotency_key: 'k', body_sha256: 'same' }),
      call('POST', '/orders/o1/ack', status, { code, idempotency_key: 'k', body_sha256: 'same' }),
    ];
    expect(importCheck.grade(observation(refused(422, 'validation_failed')))).toMatchObject({ status: 'fail', reason: expect.stringContaining('422 validation_failed') });
    expect(importCheck.grade(observation(refused(429, 'rate_limited'))).status).toBe('pending');
  });
});

describe('statuses: a refused move sent again fails', () => {
  it('fails when an invalid_status_transition is repeated with the same key, naming the call', () => {
    const first = call('POST', '/orders/o1/status', 409, { code: 'invalid_status_transition', idempotency_key: 'k', body_sha256: 'x' });
    const again = call('POST', '/orders/o1/status', 409, { code: 'invalid_status_transition', idempotency_key: 'k', body_sha256: 'x' });
    const outcome = statuses.grade(observation([first, again]));
    expect(outcome.status).toBe('fail');
    expect(outcome.reason).toMatch(/^POST \/orders\/o1\/status \(req_\d+\) repeated a status move refused with 409 invalid_status_transition/);
  });
  it('does not fail a 409 request_in_progress sent again (it means "later")', () => {
    const first = call('POST', '/orders/o1/status', 409, { code: 'request_in_progress', idempotency_key: 'k', body_sha256: 'x' });
    const again = call('POST', '/orders/o1/status', 200, { idempotency_key: 'k', body_sha256: 'x' });
    expect(statuses.grade(observation([first, again])).status).toBe('pending');
  });
});

describe('signature_rejection: the probes', () => {
  const probe = (kind: ProbeRecord['kind'], status: number | null, sentAt = T0): ProbeRecord => ({ kind, event_id: `evt_${kind}`, sent_at: sentAt, status, error: null, duration_ms: 1 });
  const good = [probe('bad_signature', 400), probe('stale_timestamp', 401), probe('unknown_secret', 400), probe('reserialised', 200), probe('duplicate', 200), probe('out_of_order', 200)];
  const orders = [{ scenario: 'probe' as const, order_id: 'ord_p', number: 3, created_at: T0 }];
  it('passes when the bad ones are refused, the others accepted, and the watch is over', () => {
    expect(signatureRejection.grade(observation([], { probes: good, orders })).status).toBe('pass');
  });
  it('is pending while the duplicate and out-of-order probes are watched', () => {
    expect(signatureRejection.grade(observation([], { probes: good, orders }, T0 + SETTLE_MS - 1)).status).toBe('pending');
  });
  it('watches the duplicate and out-of-order probes from their answers, not their sending', () => {
    const slow = good.map((p) => (p.kind === 'out_of_order' ? { ...p, duration_ms: 5000 } : p));
    expect(signatureRejection.grade(observation([], { probes: slow, orders }, T0 + 5000 + SETTLE_MS - 1)).status).toBe('pending');
    expect(signatureRejection.grade(observation([], { probes: slow, orders }, T0 + 5000 + SETTLE_MS + 1)).status).toBe('pass');
  });
  it('fails a receiver that accepts a bad signature', () => {
    const probes = [probe('bad_signature', 200), ...good.slice(1)];
    expect(signatureRejection.grade(observation([], { probes, orders })).reason).toContain('bad signature');
  });
  it('waits for a receiver that does not answer (the probe is sent again), and fails it at the deadline: no answer is not a refusal', () => {
    const probes = [probe('bad_signature', null), ...good.slice(1)];
    expect(signatureRejection.grade(observation([], { probes, orders })).status).toBe('pending');
    expect(signatureRejection.grade(observation([], { probes, orders }, LATE))).toMatchObject({ status: 'fail', reason: expect.stringContaining('bad signature') });
  });
  it('leaves a status call on the probe order after its older version to statuses (only an import done again counts)', () => {
    const later = call('POST', '/orders/ord_p/status', 409, { at: T0 + 500, code: 'invalid_status_transition' });
    expect(signatureRejection.grade(observation([later], { probes: good, orders })).status).toBe('pass');
  });
  it('takes a first import that comes after the out-of-order probe as late, and a second one as acting on the older version', () => {
    const late = call('POST', '/orders/ord_p/ack', 200, { at: T0 + 500, idempotency_key: 'k1' });
    expect(signatureRejection.grade(observation([late], { probes: good, orders })).status).toBe('pass');
    const first = call('POST', '/orders/ord_p/ack', 200, { at: T0 - 100, idempotency_key: 'k1' });
    const again = call('POST', '/orders/ord_p/ack', 200, { at: T0 + 500, idempotency_key: 'k2' });
    expect(signatureRejection.grade(observation([first, again], { probes: good, orders })).reason).toContain('older version');
  });
  it('fails an ERP that processes the duplicate twice (before the out-of-order probe)', () => {
    const probes = [...good.slice(0, 5), probe('out_of_order', 200, T0 + 1000)];
    const a = call('POST', '/orders/ord_p/ack', 200, { at: T0 + 100, idempotency_key: 'k1' });
    const b = call('POST', '/orders/ord_p/ack', 200, { at: T0 + 200, idempotency_key: 'k2' });
    expect(signatureRejection.grade(observation([a, b], { probes, orders })).reason).toBe('the receiver got 1 probe(s) wrong: duplicated event');
  });
});
