import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../../src/cli/commands/proxy/budget.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('ByteBudget', () => {
  it('never holds more than its capacity: a reservation waits until enough is released', async () => {
    const budget = new ByteBudget(10);
    await budget.take(6);
    let second = false;
    const waiting = budget.take(6).then(() => (second = true));
    await turn();
    expect(second).toBe(false);
    expect(budget.used).toBe(6);
    budget.release(6);
    await waiting;
    expect(budget.used).toBe(6);
  });

  it('serves waiters in the order they asked, so a large reservation is not starved by small ones', async () => {
    const budget = new ByteBudget(10);
    await budget.take(8);
    const order: string[] = [];
    const large = budget.take(10).then(() => order.push('large'));
    const small = budget.take(1).then(() => order.push('small'));
    await turn();
    expect(order).toEqual([]);
    budget.release(8);
    await large;
    expect(order).toEqual(['large']);
    budget.release(10);
    await small;
    expect(order).toEqual(['large', 'small']);
  });

  it('lets a request without a body through at once, even while others wait', async () => {
    const budget = new ByteBudget(10);
    await budget.take(10);
    void budget.take(5);
    let passed = false;
    await budget.take(0).then(() => (passed = true));
    expect(passed).toBe(true);
  });

  it('reserves at most its capacity for a request larger than it', async () => {
    const budget = new ByteBudget(10);
    await budget.take(50);
    expect(budget.used).toBe(10);
    budget.release(50);
    expect(budget.used).toBe(0);
  });

  it('tryTake never waits and never jumps the queue', async () => {
    const budget = new ByteBudget(10);
    expect(budget.tryTake(4)).toBe(true);
    expect(budget.tryTake(7)).toBe(false);
    const waiting = budget.take(7);
    expect(budget.tryTake(1)).toBe(false);
    budget.release(4);
    await waiting;
    expect(budget.used).toBe(7);
  });
});
