import { describe, expect, it } from 'vitest';
import { catalog } from '../../checks/catalog.js';
import { importCheck } from '../../checks/import.js';
import { statuses, TOLD_SLACK_MS } from '../../checks/statuses.js';
import type { RecordedCall, SessionDelivery } from '../../src/contract/observation.js';
import { batch, call, LATE, move, observation, STATUS_TASKS } from './observation-fixture.js';

// DESIGN: the observer grades a correct ERP as correct. Each table lists call sequences that are
// equivalent ways of showing the same steps: every one passes, whichever way the ERP is built.

const put = (path: string, facts: RecordedCall['facts'] = null, status = 200) => call('PUT', path, status, { facts });
const patch = (path: string, facts: Record<string, boolean>) => call('PATCH', path, 200, { facts: { price: false, available: false, sold_out: false, ...facts } });
const snapshot = (part: number | null, last: boolean, more: Record<string, unknown> = {}) =>
  batch({ full_snapshot: true, snapshot_id: part === null ? null : 's1', snapshot_part: part, snapshot_last: last, snapshot_status: last || part === null ? 'completed' : 'open', ...more });

describe('catalog: any legal way to publish counts', () => {
  const single = () => [
    put('/catalog/categories/c', null, 201),
    put('/catalog/products/p', { option_groups: 1, sold_out: false }, 201),
    patch('/catalog/products/p', { price: true, available: true }),
  ];
  it.each([
    ['single endpoints and a two-part snapshot', () => [...single(), snapshot(1, false), snapshot(2, true)]],
    ['single endpoints and a one-part snapshot (up to 500 operations)', () => [...single(), snapshot(1, true)]],
    ['a one-part snapshot without snapshot_id', () => [...single(), snapshot(null, false)]],
    ['batch operations only', () => [batch({ categories: 1, products_with_options: 1 }), batch({ price_changes: 1, availability_changes: 1 }), snapshot(1, true)]],
    ['everything in one full snapshot', () => [snapshot(null, false, { categories: 2, products_with_options: 3, price_changes: 1, availability_changes: 1 })]],
    ['an option\'s availability (PATCH /catalog/options)', () => [...single().slice(0, 2), patch('/catalog/products/p', { price: true }), patch('/catalog/options/o', { available: true, sold_out: true }), snapshot(1, true)]],
    ['a product upserted as sold out', () => [...single().slice(0, 2), patch('/catalog/products/p', { price: true }), put('/catalog/products/q', { option_groups: 0, sold_out: true }), snapshot(1, true)]],
    ['a price changed on an option in a batch, availability by patch_product', () => [...single().slice(0, 2), batch({ price_changes: 1 }), batch({ sold_out: 'p' }), snapshot(1, true)]],
    ['single endpoints only, no full snapshot (item by item)', () => single()],
  ])('passes: %s', (_name, calls) => {
    const outcome = catalog.grade(observation(calls()));
    expect(outcome.status, outcome.reason).toBe('pass');
  });

  it.each([
    ['a snapshot that completed with failed operations', () => [...single(), snapshot(1, true, { failed: 1, snapshot_reason: 'failed_operations' })], 'full snapshot completed'],
    ['a snapshot left open (no last part)', () => [...single(), snapshot(1, false)], 'full snapshot completed'],
    ['a snapshot whose part 2 was refused', () => [...single(), snapshot(1, false), call('POST', '/catalog/batch', 409, { code: 'snapshot_out_of_order' })], 'full snapshot completed'],
    ['a batch whose category upsert failed', () => [batch({ products_with_options: 1, price_changes: 1, availability_changes: 1 }), snapshot(1, true)], 'category upserted'],
    ['a product without option groups', () => [put('/catalog/categories/c', null, 201), put('/catalog/products/p', { option_groups: 0, sold_out: false }, 201), patch('/catalog/products/p', { price: true, available: true }), snapshot(1, true)], 'product with option groups'],
    ['a refused PATCH', () => [...single().slice(0, 2), call('PATCH', '/catalog/products/p', 422, { facts: { price: true, available: true, sold_out: false } }), snapshot(1, true)], 'price changed'],
  ])('misses a step: %s', (_name, calls, step) => {
    expect(catalog.grade(observation(calls())).reason).toMatch(new RegExp(`^waiting for: .*${step}`));
    expect(catalog.grade(observation(calls(), {}, LATE))).toMatchObject({ status: 'fail', reason: expect.stringMatching(new RegExp(`^missing: .*${step}`)) });
  });
});

describe('catalog: a refused write sent again unchanged fails', () => {
  it('names the repeated call and the refusal', () => {
    const refused = call('PUT', '/catalog/products/p', 422, { code: 'validation_failed', body_sha256: 'same' });
    const again = call('PUT', '/catalog/products/p', 422, { code: 'validation_failed', body_sha256: 'same' });
    const outcome = catalog.grade(observation([refused, again]));
    expect(outcome.status).toBe('fail');
    expect(outcome.reason).toBe(`PUT /catalog/products/p (${again.request_id}) repeated a catalog write refused with 422 validation_failed (${refused.request_id}) unchanged: a refusal is not retried without fixing its cause`);
  });
});

describe('import: acks and a failure report, never a demanded conflict', () => {
  const ack = (order: string, status = 200, more: Partial<RecordedCall> = {}) => call('POST', `/orders/${order}/ack`, status, { facts: { external_id: `E-${order}` }, ...more });
  const failure = (order: string) => call('POST', `/orders/${order}/import-failure`, 200, { facts: { code: 'unmapped_product' } });
  it.each([
    ['an ack and an import-failure', () => [ack('o1'), failure('o2')]],
    ['an import-failure, then the ack of that order', () => [failure('o2'), ack('o2')]],
    ['acks of every order, one after its failure', () => [ack('o1'), ack('o3'), failure('o2'), ack('o2')]],
    ['a 409 external_id_conflict understood (not repeated)', () => [ack('o1'), ack('o1', 409, { code: 'external_id_conflict', body_sha256: 'other' }), failure('o2')]],
  ])('passes: %s', (_name, calls) => {
    expect(importCheck.grade(observation(calls())).status).toBe('pass');
  });
  it('waits for an ack, then fails at the deadline naming it', () => {
    expect(importCheck.grade(observation([failure('o2')]))).toMatchObject({ status: 'pending', reason: 'waiting for: ack' });
    expect(importCheck.grade(observation([failure('o2')], {}, LATE))).toMatchObject({ status: 'fail', reason: 'missing: ack' });
  });
});

describe('statuses: any forward path, the tasks done, no wrong reaction', () => {
  const tasksDone = () => [move('ord_r', 'pending', 'rejected'), move('ord_c', 'pending', 'accepted'), move('ord_c', 'accepted', 'cancelled')];
  const accept = (order = 'o1') => move(order, 'pending', 'accepted', { facts: { estimated_minutes: true } });
  it.each([
    ['accepted → ready → completed (skipping stages)', () => [accept(), move('o1', 'accepted', 'ready'), move('o1', 'ready', 'completed'), ...tasksDone()]],
    ['accepted → preparing → ready → out_for_delivery → completed (every stage)', () => [accept(), move('o1', 'accepted', 'preparing'), move('o1', 'preparing', 'ready'), move('o1', 'ready', 'out_for_delivery'), move('o1', 'out_for_delivery', 'completed'), ...tasksDone()]],
    ['the acceptance with minutes made while doing the cancel task', () => [move('ord_r', 'pending', 'rejected'), move('ord_c', 'pending', 'accepted', { facts: { estimated_minutes: true } }), move('o2', 'accepted', 'completed'), move('ord_c', 'accepted', 'cancelled')]],
    ['a 409 on an order the customer cancelled, before the ERP heard of it', () => [accept(), move('o1', 'accepted', 'ready'), move('ord_x', 'cancelled', 'accepted', { code: 'invalid_status_transition' }, 409), ...tasksDone()]],
    ['a move to the state the order already has (200, no effect)', () => [accept(), move('o1', 'accepted', 'accepted'), move('o1', 'accepted', 'completed'), move('o1', 'completed', 'completed'), ...tasksDone()]],
  ])('passes: %s', (_name, calls) => {
    const outcome = statuses.grade(observation(calls(), { tasks: STATUS_TASKS }));
    expect(outcome.status, outcome.reason).toBe('pass');
  });

  it('waits for the tasks, then names those still open at the deadline', () => {
    const calls = [accept(), move('o1', 'accepted', 'ready')];
    expect(statuses.grade(observation(calls, { tasks: STATUS_TASKS })).status).toBe('pending');
    const late = statuses.grade(observation(calls, { tasks: STATUS_TASKS }, LATE));
    expect(late).toMatchObject({ status: 'fail', reason: 'tasks still open: tsk_1 reject_order (ord_r), tsk_2 cancel_order (ord_c)' });
  });

  it('is not passed before a session opened its tasks', () => {
    const calls = [accept(), move('o1', 'accepted', 'ready')];
    expect(statuses.grade(observation(calls)).reason).toContain('task reject_order');
  });

  describe('a move on an order the ERP had been told is final fails, naming the call', () => {
    const cancelled = (answeredAt: number | null): SessionDelivery => ({ order_id: 'ord_x', event_type: 'order.status_changed', order_status: 'cancelled', status: 'succeeded', succeeded_at: 1, answered_at: answeredAt, last_response_status: 200 });
    it('told by its own earlier call', () => {
      const calls = [move('ord_x', 'pending', 'cancelled'), move('ord_x', 'cancelled', 'accepted', { code: 'invalid_status_transition' }, 409)];
      const outcome = statuses.grade(observation(calls, { tasks: STATUS_TASKS }));
      expect(outcome.status).toBe('fail');
      expect(outcome.reason).toMatch(/^POST \/orders\/ord_x\/status \(req_\d+\) tried to move order ord_x to accepted after the ERP had been told it was final \(the answer to POST \/orders\/ord_x\/status \(req_\d+\) showed it cancelled\)$/);
    });
    it('told by a 409 showing the order final, then another move', () => {
      const calls = [move('ord_x', 'cancelled', 'accepted', { code: 'invalid_status_transition' }, 409), move('ord_x', 'cancelled', 'ready', { code: 'invalid_status_transition' }, 409)];
      expect(statuses.grade(observation(calls, { tasks: STATUS_TASKS })).reason).toContain('showed it cancelled');
    });
    it('told by the webhook delivery its receiver answered, more than the slack before the move', () => {
      const late = move('ord_x', 'cancelled', 'accepted', { code: 'invalid_status_transition' }, 409);
      const told = statuses.grade(observation([late], { tasks: STATUS_TASKS, deliveries: [cancelled(late.at - TOLD_SLACK_MS - 1)] }));
      expect(told.reason).toContain('its webhook receiver answered 2xx to the order.status_changed event showing it cancelled');
      // Within the slack (the call was already on its way) or with no known time (a manual clock): not wrong.
      for (const answeredAt of [late.at - 10, null]) {
        expect(statuses.grade(observation([late], { tasks: STATUS_TASKS, deliveries: [cancelled(answeredAt)] })).status).toBe('pending');
      }
    });
  });
});
