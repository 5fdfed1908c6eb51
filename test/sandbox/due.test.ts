// What falls due in the sandbox: its queue of deadlines (due-queue.ts) against a sorted list, and the order book
// settling orders by their deadlines only — expiry and plans, plans changed or dropped, a book restored — in
// the order they fell due, however many orders ended before.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SandboxClock, MINUTE } from '../../src/sandbox/world/clock.js';
import { DueQueue } from '../../src/sandbox/world/due-queue.js';
import { OrderBook, type Order } from '../../src/sandbox/world/orders.js';

describe('DueQueue', () => {
  it('gives what is due, earliest first, ties in the order queued, and nothing before its time', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 200 }), fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 8 }), (times, nows) => {
        const queue = new DueQueue<number>();
        times.forEach((at, index) => queue.push(at, index));
        const model = times.map((at, index) => ({ at, item: index }));
        const taken: { at: number; item: number }[] = [];
        const expected: { at: number; item: number }[] = [];
        for (const now of [...nows].sort((a, b) => a - b)) {
          for (let due = queue.takeDue(now); due; due = queue.takeDue(now)) taken.push(due);
          const ready = model.filter((entry) => entry.at <= now && !expected.includes(entry));
          expected.push(...ready.sort((a, b) => a.at - b.at || a.item - b.item));
        }
        expect(taken).toEqual(expected.map(({ at, item }) => ({ at, item })));
        expect(queue.size).toBe(times.length - taken.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the order book: what falls due', () => {
  function book() {
    const clock = new SandboxClock();
    const orders = new OrderBook(clock);
    const settled: string[] = [];
    orders.onChange((order) => settled.push(`${order.reference} ${order.status}`));
    let serial = 0;
    const add = (minutes: number): Order => {
      const createdAt = clock.now();
      return orders.add({
        merchantId: '1',
        orderNo: orders.nextOrderNo(),
        reference: `order-${++serial}`,
        payMethod: 'ReferenceCode',
        status: 'PENDING',
        amount: { total: 100, currency: 'EGP' },
        country: 'EG',
        createdAt,
        expiresAt: createdAt + minutes * MINUTE,
        productName: 'Tea',
      });
    };
    return { clock, orders, settled, add };
  }

  it('expires orders in the order their deadlines fell, past thousands that ended before', () => {
    const { clock, orders, settled, add } = book();
    for (let index = 0; index < 3_000; index++) orders.complete(add(30), 'SUCCESS');
    settled.length = 0;
    add(20);
    add(10);
    add(10);
    add(40);
    clock.advance(30 * MINUTE);
    orders.settleDue();
    expect(settled).toEqual(['order-3002 CLOSE', 'order-3003 CLOSE', 'order-3001 CLOSE']);
    clock.advance(10 * MINUTE);
    orders.settleDue();
    expect(settled.at(-1)).toBe('order-3004 CLOSE');
    expect(orders.get(orders.find('1', { reference: 'order-3002' })!.orderNo)!.life.at(-1)).toMatchObject({ status: 'CLOSE', what: 'expired (expireAt)' });
  });

  it('settles on a plan when it falls due, not on a plan changed or dropped since', () => {
    const { clock, orders, settled, add } = book();
    const kept = add(60);
    const moved = add(60);
    const dropped = add(60);
    const start = clock.now();
    orders.plan(kept, { status: 'SUCCESS', at: start + 5 * MINUTE, expectationId: 'e1' }, 'planned');
    orders.plan(moved, { status: 'FAIL', at: start + 5 * MINUTE, expectationId: 'e2' }, 'planned');
    orders.plan(moved, { status: 'FAIL', at: start + 20 * MINUTE, expectationId: 'e2' }, 'planned later');
    orders.plan(dropped, { status: 'SUCCESS', at: start + 5 * MINUTE, expectationId: 'e3' }, 'planned');
    orders.plan(dropped, undefined, 'dropped');
    clock.advance(10 * MINUTE);
    orders.settleDue();
    expect(settled).toEqual(['order-1 SUCCESS']);
    expect(kept.life.at(-1)?.at).toBe(start + 5 * MINUTE);
    clock.advance(15 * MINUTE);
    orders.settleDue();
    expect(settled).toEqual(['order-1 SUCCESS', 'order-2 FAIL']);
    clock.advance(60 * MINUTE);
    orders.settleDue();
    expect(settled).toEqual(['order-1 SUCCESS', 'order-2 FAIL', 'order-3 CLOSE']);
  });

  it('a restored book still expires its pending orders', () => {
    const { clock, orders, add } = book();
    add(10);
    orders.complete(add(10), 'SUCCESS');
    const again = new OrderBook(clock);
    const settled: string[] = [];
    again.onChange((order) => settled.push(`${order.reference} ${order.status}`));
    again.restore(structuredClone(orders.toData()));
    clock.advance(11 * MINUTE);
    again.settleDue();
    expect(settled).toEqual(['order-1 CLOSE']);
  });
});
