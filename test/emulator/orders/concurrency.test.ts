import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { readAllEvents, seedMenu, simulate } from '../../helpers/orders.js';
import { transition } from '../../../emulator/orders/status-machine.js';
import { ORDER_STATUSES } from '../../../src/contract/orders.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ limits: false });
  await seedMenu(emu);
});
afterAll(() => emu.close());

let keySeq = 0;
const post = (orderId: string, action: string, body: unknown) =>
  emu.api('POST', `/orders/${orderId}/${action}`, { body, idempotencyKey: `conc-${++keySeq}-${Date.now()}` });

describe('concurrent status changes to one order', () => {
  it('leave a history that is a legal path and exactly one order.status_changed per real change', async () => {
    for (const scenario of ['delivery', 'pickup_invoice']) {
      const order = await simulate(emu, { scenario });
      const targets = Array.from({ length: 20 }, (_, i) => ORDER_STATUSES[(i * 5 + 1) % ORDER_STATUSES.length]);
      const answers = await Promise.all(
        targets.map((status) => post(order.id, 'status', { status, ...(status === 'rejected' || status === 'cancelled' ? { reason: 'Concurrencia' } : {}) })),
      );
      expect(answers.every((a) => [200, 409].includes(a.status))).toBe(true);
      const final = (await emu.api('GET', `/orders/${order.id}`)).body.data;
      const path = final.status_history.map((h: any) => h.status);
      for (let i = 1; i < path.length; i++) expect(transition(path[i - 1], path[i], final.fulfillment_type)).toBe('allowed');
      const events = (await readAllEvents(emu, 'types=order.status_changed')).filter((e) => e.data.order.id === order.id);
      expect(events.map((e) => `${e.data.previous_status}>${e.data.order.status}`)).toEqual(
        path.slice(1).map((s: string, i: number) => `${path[i]}>${s}`),
      );
      expect(path.length).toBeGreaterThan(1);
    }
  });
});

describe('bad input never answers 500 (property)', () => {
  const anyValue = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.object({ maxDepth: 1 }));
  const statusBody = fc.record(
    {
      status: fc.oneof(fc.constantFrom(...ORDER_STATUSES), anyValue),
      reason: fc.oneof(fc.string({ maxLength: 300 }), anyValue),
      estimated_minutes: fc.oneof(fc.integer({ min: -5, max: 700 }), anyValue),
      occurred_at: fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), anyValue),
      extra: anyValue,
    },
    { requiredKeys: [] },
  );
  const ackBody = fc.record(
    { external_id: fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,70}$/), anyValue), external_number: anyValue, extra: anyValue },
    { requiredKeys: [] },
  );
  const failureBody = fc.record(
    { code: fc.oneof(fc.constantFrom('unmapped_product', 'other'), anyValue), message: fc.oneof(fc.string({ maxLength: 600 }), anyValue), retryable: anyValue },
    { requiredKeys: [] },
  );
  const call = fc.oneof(
    fc.tuple(fc.constant('status'), fc.oneof(statusBody, anyValue)),
    fc.tuple(fc.constant('ack'), fc.oneof(ackBody, anyValue)),
    fc.tuple(fc.constant('import-failure'), fc.oneof(failureBody, anyValue)),
  );

  it('answers the status, ack and import-failure endpoints with 2xx or a spec 4xx, whatever the body', async () => {
    const orders = [await simulate(emu, { scenario: 'delivery' }), await simulate(emu, { scenario: 'pickup_invoice' })];
    await fc.assert(
      fc.asyncProperty(call, fc.nat(2), async ([action, body], which) => {
        const orderId = which < 2 ? orders[which].id : 'ord_NOPE';
        const res = await post(orderId, action, body);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(typeof res.body.error.code).toBe('string');
      }),
      { numRuns: 150 },
    );
  });
});
