// The kit's bounded memory (bounded-map.ts) and the in-memory stores built on it: never more than their limit,
// and never forgetting what was used lately, however many other keys come and go.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/server/stores/bounded-map.js';
import { MemoryCallbackStore, MemoryThrottleStore } from '../../src/server/index.js';

describe('BoundedMap', () => {
  it('holds at most its limit, forgets the least recently used first and keeps what is read', () => {
    const map = new BoundedMap<string, number>(4);
    for (const [index, key] of ['a', 'b', 'c', 'd'].entries()) map.set(key, index);
    expect(map.size).toBe(4);
    expect(map.get('a')).toBe(0); // read: now among the most recent
    map.set('e', 4);
    map.set('f', 5);
    expect(map.size).toBeLessThanOrEqual(4);
    expect([map.get('a'), map.get('e'), map.get('f')]).toEqual([0, 4, 5]);
    expect([map.get('b'), map.get('c')]).toEqual([undefined, undefined]);
  });

  it('writes a key it holds in place, once, and deletes it wherever it is', () => {
    const map = new BoundedMap<string, number>(4);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3); // the first two become the old generation
    map.set('a', 10);
    expect(map.size).toBe(3);
    expect(map.get('a')).toBe(10);
    map.delete('b');
    map.delete('a');
    expect([map.get('a'), map.get('b'), map.get('c'), map.size]).toEqual([undefined, undefined, 3, 1]);
  });

  it('refuses a limit under 2', () => {
    expect(() => new BoundedMap(1)).toThrow(RangeError);
    expect(() => new BoundedMap(Number.NaN)).toThrow(RangeError);
  });

  it('after any sequence: within its limit, and the last half-limit keys used are all there with their latest values', () => {
    const operation = fc.record({ kind: fc.constantFrom('set', 'set', 'get', 'delete'), key: fc.integer({ min: 0, max: 40 }), value: fc.integer() });
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 16 }), fc.array(operation, { maxLength: 300 }), (limit, operations) => {
        const map = new BoundedMap<number, number>(limit);
        const model = new Map<number, number>();
        /** Keys by last use, most recent last (a read of a missing key is no use). */
        let used: number[] = [];
        for (const { kind, key, value } of operations) {
          if (kind === 'set') {
            map.set(key, value);
            model.set(key, value);
          } else if (kind === 'delete') {
            map.delete(key);
            model.delete(key);
          } else {
            const got = map.get(key);
            if (got === undefined) continue;
            expect(got).toBe(model.get(key));
          }
          used = [...used.filter((other) => other !== key), key];
          expect(map.size).toBeLessThanOrEqual(limit);
        }
        const recent = used.slice(-Math.floor(limit / 2)).filter((key) => model.has(key));
        for (const key of recent) expect(map.get(key)).toBe(model.get(key));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the in-memory stores at their bound', () => {
  it('a throttle window in use keeps its count while thousands of other keys come and go', () => {
    const store = new MemoryThrottleStore({ maxEntries: 100, now: () => 1_000 });
    let hits = 0;
    for (let index = 0; index < 5_000; index++) {
      store.hit(`messagesPerEmail:payer-${index}@example.com`, 5, 3_600_000);
      // One payer keeps coming back: their window is counted on, not forgotten and started again.
      if (index % 40 === 0) {
        expect(store.hit('createsPerClient:203.0.113.7', 1_000, 600_000).allowed).toBe(true);
        hits++;
      }
    }
    expect(store.hit('createsPerClient:203.0.113.7', hits, 600_000)).toEqual({ allowed: false, retryAfterMs: 600_000 });
  });

  it('a handled callback is remembered while others come and go, and the store stays within its bound', () => {
    const store = new MemoryCallbackStore({ maxEntries: 100, now: () => 1_000 });
    store.claim('notify-1');
    store.complete('notify-1');
    for (let index = 0; index < 5_000; index++) {
      store.claim(`other-${index}`);
      store.complete(`other-${index}`);
      if (index % 40 === 0) expect(store.claim('notify-1')).toBe('done');
      expect(store.size).toBeLessThanOrEqual(100);
    }
  });
});
