/**
 * The reconciliation store's contract (src/server/stores/reconciliation/port.ts), run against each adapter: memory,
 * and Redis shared by two processes. A sweep takes the orders due by its `now`, earliest first, at most its limit,
 * each whole as tracked, and none of them again before its `until`, whichever process sweeps, even at once. Tracking
 * an order again replaces it; a reschedule makes it due sooner, never later, and brings no forgotten order back; a
 * forgotten order is never taken. Beyond its bound the store keeps no new order, but still updates those it keeps.
 */
import { describe, expect, it } from 'vitest';
import type { TrackedOrder } from '../../../src/server/stores/reconciliation/port.js';
import { ADAPTERS, RECONCILIATION_STORES } from './adapters.js';

const order = (n: number, total = 100 * n): TrackedOrder => ({
  orderNo: `2611220000000${n}`,
  reference: `cart-${n}`,
  country: 'EG',
  amount: { total, currency: 'EGP' },
  deadline: 1_000_000 + n,
  ...(n % 2 === 0 ? { checkout: { reference: `cart-${n}`, attempt: 2, amount: { total, currency: 'EGP' } } } : {}),
});

const ALL = Number.MAX_SAFE_INTEGER;

describe.each(ADAPTERS)('the %s reconciliation store', (name) => {
  /** Fresh orders for each test: a sweep takes whatever is due in the whole store. */
  const open = (maxOrders = 10) => RECONCILIATION_STORES[name]({ maxOrders });

  it('takes the orders due by now, earliest first, at most the limit, whole as tracked', async () => {
    const { writer, reader } = await open();
    for (const [n, dueAt] of [[1, 300], [2, 100], [3, 200], [4, 1_000]] as const) expect(await writer.track(order(n), dueAt)).toBe(true);
    expect(await reader.take(500, 2, 5_000)).toEqual([order(2), order(3)]);
    expect(await reader.take(500, 10, 5_000)).toEqual([order(1)]);
  });

  it('takes no order again before its until, then does; two sweeps at once share the due orders', async () => {
    const { writer, reader } = await open();
    for (const n of [1, 2, 3, 4]) await writer.track(order(n), 100);
    const sweeps = await Promise.all([writer.take(100, 10, 2_000), reader.take(100, 10, 2_000)]);
    expect(sweeps.flat().map(({ orderNo }) => orderNo).sort()).toEqual([1, 2, 3, 4].map((n) => order(n).orderNo));
    expect(await reader.take(1_999, 10, 3_000)).toEqual([]);
    expect(await writer.take(2_000, 1, 3_000)).toHaveLength(1);
  });

  it('replaces an order tracked again, and its due time', async () => {
    const { writer, reader } = await open();
    await writer.track(order(1), 100);
    await reader.track(order(1, 999), 500);
    expect(await writer.take(499, 10, ALL)).toEqual([]);
    expect(await writer.take(500, 10, ALL)).toEqual([order(1, 999)]);
  });

  it('leaves an order kept already as it is when told of it again with keep (a status answer), keeps one it lacks', async () => {
    const { writer, reader } = await open();
    await writer.track(order(1), 100);
    expect(await reader.track(order(1, 999), 500, true)).toBe(true);
    expect(await reader.track(order(2), 300, true)).toBe(true);
    expect(await writer.take(300, 10, ALL)).toEqual([order(1), order(2)]);
  });

  it('reschedules an order sooner, never later, ending a sweep early; a forgotten order stays forgotten', async () => {
    const { writer, reader } = await open();
    await writer.track(order(1), 1_000);
    await reader.reschedule(order(1).orderNo, 2_000);
    expect(await writer.take(1_000, 10, 9_000)).toEqual([order(1)]);
    // Taken until 9 000; a reschedule sooner ends that early.
    await reader.reschedule(order(1).orderNo, 3_000);
    expect(await writer.take(3_000, 10, 9_000)).toEqual([order(1)]);
    await reader.forget(order(1).orderNo);
    await writer.reschedule(order(1).orderNo, 0);
    expect(await reader.take(ALL, 10, ALL)).toEqual([]);
  });

  it('never takes a forgotten order', async () => {
    const { writer, reader } = await open();
    await writer.track(order(1), 100);
    await writer.track(order(2), 200);
    await reader.forget(order(1).orderNo);
    expect(await writer.take(ALL, 10, ALL)).toEqual([order(2)]);
  });

  it('keeps no new order beyond its bound, still updates one it keeps, and has room again once one is forgotten', async () => {
    const { writer, reader } = await open(2);
    expect([await writer.track(order(1), 100), await reader.track(order(2), 200)]).toEqual([true, true]);
    expect(await writer.track(order(3), 50)).toBe(false);
    expect(await reader.track(order(1, 999), 300)).toBe(true);
    expect(await writer.take(1_000, 10, 5_000)).toEqual([order(2), order(1, 999)]);
    await reader.forget(order(2).orderNo);
    expect(await writer.track(order(3), 50)).toBe(true);
    expect(await reader.take(1_000, 10, 5_000)).toEqual([order(3)]);
  });
});
