/**
 * The throttle store's contract (src/server/stores/throttle/port.ts), run against each adapter: memory, and Redis
 * shared by two processes. Calls are counted, refused ones too, in fixed windows that start at a key's first call and
 * end `windowMs` later, whatever comes after; a refusal says when its window ends. A negative cost gives counts back,
 * never below nothing, and never starts a window. Places are held under every key at once or under none, given back
 * once however often released; a process that dies without giving its places back holds them one lease at most.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Place, ThrottleResult } from '../../../src/server/stores/throttle/port.js';
import { eventually } from '../../support/sandbox-fixture.js';
import { ADAPTERS, THROTTLE_STORES, type ThrottleProcesses } from './adapters.js';

/** Long enough that a real window, in Redis, outlasts the test's own pauses within it by a wide margin. */
const WINDOW_MS = 1_000;
/**
 * The window of the test that steps to 70 % of one and asks to be refused inside it: its 30 % must outlast a few calls'
 * round trips on a busy machine (a window of 400 ms left 120 ms, which a loaded run of npm test overran).
 */
const FIXED_WINDOW_MS = 2_000;
/** The lease on a process's places: renewed every third of it while the process lives. */
const OPEN_LEASE_MS = 300;

describe.each(ADAPTERS)('the %s throttle store', (name) => {
  let stores: ThrottleProcesses;
  let serial = 0;
  const key = () => `limit:${(serial += 1)}`;
  const allowed = async (answers: (ThrottleResult | Promise<ThrottleResult>)[]) => (await Promise.all(answers)).map((answer) => answer.allowed);
  beforeAll(async () => {
    stores = await THROTTLE_STORES[name]({ openLeaseMs: OPEN_LEASE_MS });
  });

  it('allows `limit` calls in a window, counted in every process, then refuses, saying when the window ends', async () => {
    const counted = key();
    expect(await allowed([stores.writer.hit(counted, 2, WINDOW_MS), stores.reader.hit(counted, 2, WINDOW_MS)])).toEqual([true, true]);
    const refused = await stores.writer.hit(counted, 2, WINDOW_MS);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
    expect(await stores.writer.hit(key(), 2, WINDOW_MS)).toEqual({ allowed: true, retryAfterMs: 0 });
  });

  it('keeps a window fixed from its first call: later calls do not move its end, and a new one starts after it', async () => {
    const counted = key();
    expect((await stores.writer.hit(counted, 2, FIXED_WINDOW_MS)).allowed).toBe(true);
    await stores.pass(FIXED_WINDOW_MS * 0.7);
    expect((await stores.reader.hit(counted, 2, FIXED_WINDOW_MS)).allowed).toBe(true);
    const refused = await stores.writer.hit(counted, 2, FIXED_WINDOW_MS);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(FIXED_WINDOW_MS * 0.3);
    await stores.pass(FIXED_WINDOW_MS * 0.5);
    expect(await allowed([stores.reader.hit(counted, 2, FIXED_WINDOW_MS), stores.writer.hit(counted, 2, FIXED_WINDOW_MS)])).toEqual([true, true]);
    expect((await stores.writer.hit(counted, 2, FIXED_WINDOW_MS)).allowed).toBe(false);
  });

  it('counts a cost of several calls, and a refused call too', async () => {
    const costly = key();
    expect((await stores.writer.hit(costly, 3, WINDOW_MS, 2)).allowed).toBe(true);
    expect((await stores.reader.hit(costly, 3, WINDOW_MS, 2)).allowed).toBe(false);
    // 4 counted: one given back leaves 3, and the next call is the fourth.
    await stores.writer.hit(costly, 3, WINDOW_MS, -1);
    expect((await stores.reader.hit(costly, 3, WINDOW_MS)).allowed).toBe(false);
  });

  it('gives counts back within a window, from any process, never below nothing', async () => {
    const counted = key();
    expect(await allowed([stores.writer.hit(counted, 2, WINDOW_MS), stores.writer.hit(counted, 2, WINDOW_MS)])).toEqual([true, true]);
    await stores.reader.hit(counted, 2, WINDOW_MS, -1);
    expect((await stores.writer.hit(counted, 2, WINDOW_MS)).allowed).toBe(true);
    expect((await stores.writer.hit(counted, 2, WINDOW_MS)).allowed).toBe(false);
    // 3 counted; 4 given back leave nothing, not less: two calls are allowed again, not three.
    await stores.writer.hit(counted, 2, WINDOW_MS, -3);
    await stores.reader.hit(counted, 2, WINDOW_MS, -1);
    expect(await allowed([stores.writer.hit(counted, 2, WINDOW_MS), stores.reader.hit(counted, 2, WINDOW_MS)])).toEqual([true, true]);
    expect((await stores.writer.hit(counted, 2, WINDOW_MS)).allowed).toBe(false);
  });

  it('never starts a window by giving back', async () => {
    const counted = key();
    await stores.writer.hit(counted, 2, WINDOW_MS, -1);
    await stores.reader.hit(counted, 2, WINDOW_MS, -1);
    await stores.pass(WINDOW_MS / 2);
    expect(await allowed([stores.writer.hit(counted, 2, WINDOW_MS), stores.reader.hit(counted, 2, WINDOW_MS)])).toEqual([true, true]);
    const refused = await stores.writer.hit(counted, 2, WINDOW_MS);
    expect(refused.allowed).toBe(false);
    // The window began with the first call, not with the give-back half a window earlier.
    expect(refused.retryAfterMs).toBeGreaterThan(WINDOW_MS * 0.75);
  });

  const places = (...limits: [name: string, limit: number][]): Place[] => limits.map(([place, limit]) => ({ key: `${name}:${place}`, limit }));

  it('holds a place under every key at once or under none, in every process, and says which key was full', async () => {
    const [a, b, c, d] = [key(), key(), key(), key()];
    expect((await stores.writer.hold!(places([a, 1], [b, 2]))).held).toBe(true);
    expect((await stores.reader.hold!(places([c, 1], [b, 2]))).held).toBe(true);
    expect(await stores.writer.hold!(places([a, 1], [d, 1]))).toEqual({ held: false, full: 0 });
    expect(await stores.reader.hold!(places([d, 1], [b, 2]))).toEqual({ held: false, full: 1 });
    // Refused, it took nothing: d's one place is still there.
    expect((await stores.writer.hold!(places([d, 1]))).held).toBe(true);
  });

  it('gives the places back on release, once however often released', async () => {
    const [open, also] = [key(), key()];
    const both = places([open, 2], [also, 3]);
    const first = await stores.writer.hold!(both);
    expect((await stores.writer.hold!(both)).held).toBe(true);
    expect(await stores.reader.hold!(both)).toEqual({ held: false, full: 0 });
    if (!first.held) throw new Error('the first place was not held');
    first.release();
    first.release();
    await eventually('a place given back', async () => (await stores.reader.hold!(both)).held);
    // The writer's own connection: after both releases reached the store.
    expect(await stores.writer.hold!(both)).toEqual({ held: false, full: 0 });
    expect((await stores.writer.hold!(places([also, 3]))).held).toBe(true);
  });

  // Processes share places only in a shared store: in memory, places die with their process, so the case is the
  // shared stores' alone (not a skipped one of memory's).
  if (name !== 'memory') it("frees a dead process's places once its lease ran out, and keeps a live one's beyond it", async () => {
    const [left, kept] = [key(), key()];
    const gone = await stores.another!();
    expect((await gone.store.hold!(places([left, 2]))).held).toBe(true);
    expect((await gone.store.hold!(places([left, 2]))).held).toBe(true);
    expect((await stores.writer.hold!(places([kept, 1]))).held).toBe(true);
    await gone.die();
    expect(await stores.reader.hold!(places([left, 2]))).toEqual({ held: false, full: 0 });
    await stores.pass(OPEN_LEASE_MS);
    expect((await stores.reader.hold!(places([left, 2]))).held).toBe(true);
    expect(await stores.reader.hold!(places([kept, 1]))).toEqual({ held: false, full: 0 });
  });
});
