import { describe, expect, it } from 'vitest';
import { catalog, twoPartSnapshot } from '../../checks/catalog.js';
import { importCheck } from '../../checks/import.js';
import { retries } from '../../checks/retries.js';
import { signatureRejection, SETTLE_MS } from '../../checks/signature-rejection.js';
import { skipsForward, statuses } from '../../checks/statuses.js';
import { connection } from '../../checks/connection.js';
import type { Observation, ProbeRecord, RecordedCall } from '../../checks/observation.js';

const T0 = 1_700_000_000_000;
let seq = 0;

function call(method: string, path: string, status: number, more: Partial<RecordedCall> = {}): RecordedCall {
  seq += 1;
  return { seq, at: T0 + seq * 10, method, path, status, code: null, idempotency_key: null, duration_ms: 2, body_sha256: 'b', request_id: `req_${seq}`, facts: null, injected: false, ...more };
}

function observation(calls: RecordedCall[], session: Partial<Observation['session']> = {}, now = T0 + 60_000): Observation {
  return {
    integration_id: 'int_x',
    environment: 'test',
    scopes: ['store:read', 'store:write', 'catalog:read', 'catalog:write', 'orders:read', 'orders:write', 'webhooks:manage'],
    calls,
    session: { started_at: T0, deadline: T0 + 120_000, orders: [], deliveries: [], probes: [], faults: [], problems: [], finished: true, ...session },
    now,
  };
}

describe('statuses: forward skips', () => {
  it.each([
    ['accepted', 'ready', true],
    ['accepted', 'completed', true],
    ['preparing', 'out_for_delivery', true],
    ['accepted', 'preparing', false],
    ['pending', 'preparing', false],
    ['ready', 'accepted', false],
    [null, 'completed', false],
  ])('%s → %s skips a stage: %s', (from, to, expected) => {
    expect(skipsForward(from, to)).toBe(expected);
  });
});

describe('catalog: a full snapshot in two parts', () => {
  const part = (id: string, n: number, last: boolean, status = 200) =>
    call('POST', '/catalog/batch', status, { facts: { full_snapshot: true, snapshot_id: id, snapshot_part: n, snapshot_last: last, operations: 1 } });
  it('finds part 1 then a last part of the same snapshot', () => {
    expect(twoPartSnapshot([part('s1', 1, false), part('s1', 2, true)])).not.toBeNull();
  });
  it.each([
    ['a one-part snapshot', [part('s1', 1, true)]],
    ['parts of two snapshots', [part('s1', 1, false), part('s2', 2, true)]],
    ['a refused last part', [part('s1', 1, false), part('s1', 2, true, 409)]],
  ])('does not count %s', (_name, calls) => {
    expect(twoPartSnapshot(calls as RecordedCall[])).toBeNull();
  });
  it('stays pending while something is missing and fails at the deadline', () => {
    const calls = [call('PUT', '/catalog/categories/c', 201)];
    expect(catalog.grade(observation(calls)).status).toBe('pending');
    expect(catalog.grade(observation(calls, {}, T0 + 200_000)).status).toBe('fail');
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
    const retry = call('POST', '/orders/o1/ack', retryStatus, { idempotency_key: retryKey, at: first.at + first.duration_ms + gapMs });
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

describe('import: a 4xx is never repeated', () => {
  it('fails when an external_id_conflict is sent again', () => {
    const conflict = call('POST', '/orders/o1/ack', 409, { code: 'external_id_conflict', idempotency_key: 'a', facts: { external_id: 'B' } });
    const again = call('POST', '/orders/o1/ack', 409, { code: 'external_id_conflict', idempotency_key: 'b', facts: { external_id: 'B' } });
    expect(importCheck.grade(observation([conflict, again])).status).toBe('fail');
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
  it('fails when an invalid_status_transition is repeated with the same key', () => {
    const first = call('POST', '/orders/o1/status', 409, { code: 'invalid_status_transition', idempotency_key: 'k', body_sha256: 'x' });
    const again = call('POST', '/orders/o1/status', 409, { code: 'invalid_status_transition', idempotency_key: 'k', body_sha256: 'x' });
    expect(statuses.grade(observation([first, again])).status).toBe('fail');
  });
});

describe('signature_rejection: the probes', () => {
  const probe = (kind: ProbeRecord['kind'], status: number | null, sentAt = T0): ProbeRecord => ({ kind, event_id: `evt_${kind}`, sent_at: sentAt, status, error: null, duration_ms: 1 });
  const good = [probe('bad_signature', 400), probe('stale_timestamp', 401), probe('unknown_secret', 400), probe('reserialised', 200), probe('duplicate', 200), probe('out_of_order', 200)];
  const orders = [{ scenario: 'probe' as const, order_id: 'ord_p' }];
  it('passes when the bad ones are refused, the others accepted, and the watch is over', () => {
    expect(signatureRejection.grade(observation([], { probes: good, orders })).status).toBe('pass');
  });
  it('is pending while the duplicate and out-of-order probes are watched', () => {
    expect(signatureRejection.grade(observation([], { probes: good, orders }, T0 + SETTLE_MS - 1)).status).toBe('pending');
  });
  it('fails a receiver that accepts a bad signature', () => {
    const probes = [probe('bad_signature', 200), ...good.slice(1)];
    expect(signatureRejection.grade(observation([], { probes, orders })).reason).toContain('bad signature');
  });
  it('fails a receiver that does not answer (no answer is not a refusal)', () => {
    const probes = [probe('bad_signature', null), ...good.slice(1)];
    expect(signatureRejection.grade(observation([], { probes, orders })).status).toBe('fail');
  });
  it('fails an ERP that acts on the older version after the out-of-order probe', () => {
    const later = call('POST', '/orders/ord_p/status', 409, { at: T0 + 500, code: 'invalid_status_transition' });
    expect(signatureRejection.grade(observation([later], { probes: good, orders })).reason).toContain('older version');
  });
  it('fails an ERP that processes the duplicate twice', () => {
    const a = call('POST', '/orders/ord_p/ack', 200, { idempotency_key: 'k1' });
    const b = call('POST', '/orders/ord_p/ack', 200, { idempotency_key: 'k2' });
    expect(signatureRejection.grade(observation([a, b], { probes: good, orders })).reason).toContain('duplicated');
  });
});

describe('import and statuses: every step seen passes; a missing one is awaited, then fails at the deadline', () => {
  const ack = (order: string, status: number, externalId: string, more: Partial<RecordedCall> = {}) =>
    call('POST', `/orders/${order}/ack`, status, { facts: { external_id: externalId }, body_sha256: `ack-${order}-${externalId}`, ...more });
  const importCalls = () => [
    ack('o1', 200, 'A'),
    ack('o1', 200, 'A'),
    ack('o1', 409, 'B', { code: 'external_id_conflict' }),
    call('POST', '/orders/o2/import-failure', 200, { facts: { code: 'unmapped_product' } }),
    ack('o2', 200, 'C'),
  ];
  const move = (status: string, more: Record<string, unknown>, code = 200) =>
    call('POST', '/orders/o1/status', code, { facts: { status, estimated_minutes: false, reason: false, previous_status: null, ...more }, body_sha256: `${status}-${seq}` });
  const statusCalls = () => [
    move('accepted', { estimated_minutes: true }),
    move('ready', { previous_status: 'accepted' }),
    move('rejected', { reason: true }),
    move('cancelled', { reason: true }),
    call('POST', '/orders/o1/status', 409, { code: 'invalid_status_transition' }),
  ];
  it.each([
    ['import', importCheck, importCalls, 'ack after the failure', 4],
    ['statuses', statuses, statusCalls, 'forward move skipping a stage', 1],
  ] as const)('%s', (_name, check, calls, missingStep, dropped) => {
    expect(check.grade(observation(calls())).status).toBe('pass');
    const partial = calls().filter((_c, i) => i !== dropped);
    const waiting = check.grade(observation(partial));
    expect(waiting).toMatchObject({ status: 'pending', reason: `waiting for: ${missingStep}` });
    expect(check.grade(observation(partial, {}, T0 + 200_000))).toMatchObject({ status: 'fail', reason: `missing: ${missingStep}` });
  });
});
