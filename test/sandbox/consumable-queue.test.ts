// The one queue behind service faults, delivery faults and expectations (consumable-queue.ts): oldest first,
// spent as its owner says, ids that never repeat across a restart, copies out, a listener per change.
import { describe, expect, it } from 'vitest';
import { SandboxClock } from '../../src/sandbox/world/clock.js';
import { DeliveryFaultQueue } from '../../src/sandbox/faults/delivery-faults.js';
import { ExpectationBook } from '../../src/sandbox/scenarios/expectations.js';
import { FaultQueue } from '../../src/sandbox/faults/service-faults.js';

describe('a consumable queue', () => {
  it('meets the oldest item first and lets it go once its count is spent', () => {
    const faults = new FaultQueue();
    faults.add('50003', 2);
    faults.add('drop', 1);
    expect([faults.take()?.kind, faults.take()?.kind, faults.take()?.kind, faults.take()]).toEqual(['50003', '50003', 'drop', undefined]);
    expect(faults.list()).toEqual([]);
  });

  it('meets the first item that matches, and leaves the others where they are', () => {
    const faults = new DeliveryFaultQueue();
    faults.add({ kind: 'omit', count: 1, orderNo: '1001' });
    faults.add({ kind: 'duplicate', count: 1 });
    const delivery = (orderNo: string) => ({ orderNo, reference: `ref-${orderNo}`, merchantId: 'm' });
    expect(faults.take(delivery('2002'))?.kind).toBe('duplicate');
    expect(faults.take(delivery('2002'))).toBeUndefined();
    expect(faults.take(delivery('1001'))?.kind).toBe('omit');
  });

  it('keeps an item its owner keeps, and never meets it again', () => {
    const expectations = new ExpectationBook(new SandboxClock());
    const told = expectations.add({ target: 'payment', reference: 'order-1', outcome: 'SUCCESS' });
    expect(expectations.take('payment', 'm', 'order-1', '1001')).toMatchObject({ id: told.id, state: 'applied', orderNo: '1001' });
    expect(expectations.take('payment', 'm', 'order-1', '1002')).toBeUndefined();
    expectations.done(told.id, 'order 1001 ended SUCCESS');
    expect(expectations.list()).toMatchObject([{ id: told.id, state: 'done', note: 'order 1001 ended SUCCESS' }]);
  });

  it('hands out copies: changing one changes nothing queued', () => {
    const faults = new FaultQueue();
    const added = faults.add('slow', 3, 100);
    added.remaining = 0;
    faults.list()[0]!.remaining = 0;
    expect(faults.take()).toMatchObject({ remaining: 2 });
  });

  it('numbers ids on from where a restored queue left off, even after its items were removed', () => {
    const faults = new FaultQueue();
    faults.add('drop', 1);
    const second = faults.add('drop', 1);
    faults.clear();
    const saved = faults.toData();
    expect(saved).toEqual({ faults: [], counter: 2 });
    const restored = new FaultQueue();
    restored.restore(saved);
    expect(restored.add('drop', 1).id).not.toBe(second.id);
    expect(restored.list().map((fault) => fault.id)).toEqual(['f3']);
  });

  it('tells its listeners of every change, and of nothing that changed nothing', () => {
    const expectations = new ExpectationBook(new SandboxClock());
    let changes = 0;
    expectations.onChange(() => (changes += 1));
    const told = expectations.add({ target: 'payment', reference: 'order-2', outcome: 'FAIL' });
    expectations.take('payment', 'm', 'order-2', '1001');
    expectations.done(told.id, 'ended');
    expectations.done(told.id, 'ended again');
    expect(expectations.remove('e99')).toBe(false);
    expect(changes).toBe(3);
    expect(expectations.remove(told.id)).toBe(true);
    expect(changes).toBe(4);
  });
});
