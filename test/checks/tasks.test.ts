import { describe, expect, it } from 'vitest';
import { gradeTasks, instructionOf } from '../../checks/tasks.js';
import { importRecovery } from '../../checks/import-recovery.js';
import { catalog } from '../../checks/catalog.js';
import { statuses } from '../../checks/statuses.js';
import type { OpenedTask, RecordedCall } from '../../src/contract/observation.js';
import { batch, call, LATE, move, observation, STATUS_TASKS, T0 } from './observation-fixture.js';

const [REJECT, CANCEL] = STATUS_TASKS as [OpenedTask, OpenedTask];
const SOLD_OUT: OpenedTask = { id: 'tsk_3', action: 'mark_unavailable', external_id: 'erp-classic', product_name: 'Classic burger', opened_at: T0 };
const RECOVER: OpenedTask = { id: 'tsk_4', action: 'import_after_failure', order_id: 'ord_u', order_number: 9, opened_at: T0 };

const graded = (task: OpenedTask, calls: RecordedCall[]) => gradeTasks(observation(calls, { tasks: [task] }))[0]!;

describe('tasks: the published shape', () => {
  it('has DESIGN\'s fields in order, an English instruction naming the order by number and id', () => {
    const [reject, , soldOut] = gradeTasks(observation([], { tasks: [REJECT, CANCEL, SOLD_OUT] }));
    expect(Object.keys(reject!)).toEqual(['id', 'action', 'order_id', 'instruction', 'status', 'reason']);
    expect(reject).toMatchObject({ id: 'tsk_1', action: 'reject_order', order_id: 'ord_r', status: 'open', reason: null });
    expect(reject!.instruction).toBe('Reject order #7 (ord_r) from your ERP with a reason (3 to 255 characters) before your ERP accepts it; it is pending and waits for you.');
    expect(Object.keys(soldOut!)).toEqual(['id', 'action', 'external_id', 'instruction', 'status', 'reason']);
    expect(soldOut!.instruction).toBe('Mark product "Classic burger" (external_id erp-classic) sold out from your ERP (available: false).');
  });
  it.each([CANCEL, RECOVER])('names order #%# by number and id', (task) => {
    expect(instructionOf(task)).toContain(`order #${task.order_number} (${task.order_id})`);
  });
});

describe('tasks: done, made final before they were done (re-issued), or done wrongly with the reason', () => {
  it.each([
    ['reject_order rejected', REJECT, () => [move('ord_r', 'pending', 'rejected')], 'done', /^rejected with a reason: POST \/orders\/ord_r\/status \(req_\d+\)$/],
    ['reject_order accepted (by the ERP itself): now to be cancelled', REJECT, () => [move('ord_r', 'pending', 'accepted')], 'open', null],
    ['reject_order accepted, then cancelled', REJECT, () => [move('ord_r', 'pending', 'accepted'), move('ord_r', 'accepted', 'cancelled')], 'done', /^cancelled with a reason after your ERP accepted it \(accepted\): POST/],
    ['reject_order cancelled while pending', REJECT, () => [move('ord_r', 'pending', 'cancelled')], 'failed', /^order #7 \(ord_r\) was cancelled while still pending before the task was done; the session re-issues it on a new order: POST/],
    ['reject_order accepted and completed', REJECT, () => [move('ord_r', 'pending', 'accepted'), move('ord_r', 'accepted', 'completed')], 'failed', /^order #7 \(ord_r\) was completed before the task was done; the session re-issues it/],
    ['reject_order: a refused call does nothing', REJECT, () => [move('ord_r', 'pending', 'rejected', {}, 422)], 'open', null],
    ['cancel_order accepted then cancelled', CANCEL, () => [move('ord_c', 'pending', 'accepted'), move('ord_c', 'accepted', 'cancelled')], 'done', /^cancelled with a reason after it was accepted: POST/],
    ['cancel_order accepted, moved on, then cancelled', CANCEL, () => [move('ord_c', 'pending', 'accepted'), move('ord_c', 'accepted', 'ready'), move('ord_c', 'ready', 'cancelled')], 'done', /after it was ready/],
    ['cancel_order accepted only', CANCEL, () => [move('ord_c', 'pending', 'accepted')], 'open', null],
    ['cancel_order rejected', CANCEL, () => [move('ord_c', 'pending', 'rejected')], 'failed', /^order #8 \(ord_c\) was rejected before the task was done; the session re-issues it/],
    ['cancel_order cancelled while pending', CANCEL, () => [move('ord_c', 'pending', 'cancelled')], 'failed', /^order #8 \(ord_c\) was cancelled while still pending before the task was done/],
    ['cancel_order completed', CANCEL, () => [move('ord_c', 'pending', 'accepted'), move('ord_c', 'accepted', 'completed')], 'failed', /was completed before the task was done/],
    ['cancel_order completed, already re-issued', { ...CANCEL, reissued_as: 'tsk_5' }, () => [move('ord_c', 'pending', 'accepted'), move('ord_c', 'accepted', 'completed')], 'failed', /was completed before the task was done; re-issued as tsk_5: POST/],
    ['mark_unavailable by PATCH', SOLD_OUT, () => [call('PATCH', '/catalog/products/erp-classic', 200, { facts: { price: false, available: true, sold_out: true } })], 'done', /^marked sold out: PATCH/],
    ['mark_unavailable by PUT', SOLD_OUT, () => [call('PUT', '/catalog/products/erp-classic', 200, { facts: { option_groups: 1, sold_out: true } })], 'done', /^marked sold out: PUT/],
    ['mark_unavailable in a batch', SOLD_OUT, () => [batch({ sold_out: 'other\nerp-classic', availability_changes: 1 })], 'done', /^marked sold out: POST \/catalog\/batch/],
    ['mark_unavailable: another product PATCHed available on the ERP\'s own', SOLD_OUT, () => [call('PATCH', '/catalog/products/other', 200, { facts: { price: false, available: true, sold_out: false } })], 'done', /^not needed any more, the ERP changed an availability itself: PATCH/],
    ['mark_unavailable removed (DELETE) instead', SOLD_OUT, () => [call('DELETE', '/catalog/products/erp-classic', 200)], 'failed', /removed from the menu instead of marked sold out/],
    ['mark_unavailable before the task opened', { ...SOLD_OUT, opened_at: T0 + 100_000 }, () => [call('PATCH', '/catalog/products/erp-classic', 200, { facts: { price: false, available: true, sold_out: true } })], 'open', null],
    ['import_after_failure acknowledged', RECOVER, () => [call('POST', '/orders/ord_u/ack', 200)], 'done', /^acknowledged after the import failure: POST \/orders\/ord_u\/ack/],
    ['import_after_failure rejected instead', RECOVER, () => [move('ord_u', 'pending', 'rejected')], 'failed', /was rejected instead of resolved and acknowledged/],
  ] as const)('%s → %s', (_name, task, calls, status, reason) => {
    const t = graded(task, calls() as RecordedCall[]);
    expect(t.status).toBe(status);
    if (reason) expect(t.reason).toMatch(reason);
    else expect(t.reason).toBeNull();
  });
});

describe('tasks in their checks', () => {
  it('statuses waits while a task made final before it was done is re-issued, and names the task still open at the deadline', () => {
    const calls = [move('o1', 'pending', 'accepted', { facts: { estimated_minutes: true } }), move('o1', 'accepted', 'ready'), move('ord_r', 'pending', 'cancelled'), move('ord_c', 'pending', 'accepted'), move('ord_c', 'accepted', 'cancelled')];
    expect(statuses.grade(observation(calls, { tasks: STATUS_TASKS })).status).toBe('pending');
    expect(statuses.grade(observation(calls, { tasks: STATUS_TASKS }, LATE))).toMatchObject({ status: 'fail', reason: 'tasks still open: tsk_1 reject_order (ord_r)' });
  });

  it('catalog takes the mark_unavailable task for the availability step, and fails when it is done wrongly', () => {
    const published = [call('PUT', '/catalog/categories/c', 201), call('PUT', '/catalog/products/erp-classic', 201, { facts: { option_groups: 1, sold_out: false } }), call('PATCH', '/catalog/products/erp-classic', 200, { facts: { price: true, available: false, sold_out: false } }), batch({ full_snapshot: true, snapshot_status: 'completed' })];
    expect(catalog.grade(observation(published, { tasks: [SOLD_OUT] })).reason).toBe('waiting for: task tsk_3: mark_unavailable erp-classic');
    const soldOut = call('PATCH', '/catalog/products/erp-classic', 200, { facts: { price: false, available: true, sold_out: true } });
    expect(catalog.grade(observation([...published, soldOut], { tasks: [SOLD_OUT] })).status).toBe('pass');
    const removed = call('DELETE', '/catalog/products/erp-classic', 200);
    expect(catalog.grade(observation([...published, removed], { tasks: [SOLD_OUT] })).reason).toMatch(/^task tsk_3 \(mark_unavailable\) was done wrongly: product erp-classic was removed/);
  });

  it('import_recovery (optional) passes when every reported order is acknowledged, fails with the open ones named, skips when none was reported', () => {
    expect(importRecovery.mandatory).toBe(false);
    const acked = call('POST', '/orders/ord_u/ack', 200);
    expect(importRecovery.grade(observation([acked], { tasks: [RECOVER] })).status).toBe('pass');
    expect(importRecovery.grade(observation([], { tasks: [RECOVER] })).status).toBe('pending');
    expect(importRecovery.grade(observation([], { tasks: [RECOVER] }, LATE))).toMatchObject({ status: 'fail', reason: 'tasks still open: tsk_4 import_after_failure (ord_u)' });
    expect(importRecovery.grade(observation([], {}, LATE)).status).toBe('skip');
    expect(importRecovery.grade(observation([], {})).status).toBe('pending');
  });
});
