// When a status stream asks about its order (src/server/streams/pace.ts), on a clock of the test's own: brisk for
// briskSeconds after the payer's last action whatever callbacks do, never more than 12.5 s apart (so that a payment
// whose callback is lost shows within 15 s), within the per-order status limit; quiet after it while callbacks arrive.
import { describe, expect, it } from 'vitest';
import { DEFAULT_STREAM_OPTIONS } from '../../src/server/config/streams.js';
import { DEFAULT_LIMITS } from '../../src/server/limits/table.js';
import { StreamPace } from '../../src/server/streams/pace.js';
import { OrderWatch } from '../../src/server/streams/watch.js';

function setUp() {
  let now = 1_000_000;
  const pace = new StreamPace(DEFAULT_STREAM_OPTIONS, () => now, true);
  const watch = new OrderWatch('o:1', { country: 'EG', orderNo: '1' }, undefined, now + 24 * 3_600_000, true);
  /** Runs the checks the pace asks for until `until` (ms from the start), and gives their times. */
  const start = now;
  const run = (until: number): number[] => {
    const times: number[] = [];
    for (;;) {
      const due = pace.dueAt(watch);
      if (due - start > until) return times;
      now = Math.max(now, due);
      watch.lastCheckAt = now;
      watch.step += 1;
      times.push(now - start);
    }
  };
  return { pace, watch, run, at: () => now - start, advance: (ms: number) => (now += ms), start };
}

const gapsOf = (times: number[]) => times.slice(1).map((time, index) => time - times[index]!);

describe('the pace of a stream’s checks', () => {
  it('is brisk for briskSeconds after the payer acts, callbacks arriving or not, at most 12.5 s apart, then quiet', () => {
    const { pace, watch, run, start } = setUp();
    expect(pace.callbackHeard()).toBe(true); // callbacks arrive: the streams count on them
    pace.acted(watch, start); // the payer's stream opened
    const window = DEFAULT_STREAM_OPTIONS.briskSeconds * 1000;
    // The checks of the window, and the first at or past its end: a payment at any moment of it is seen within 12.5 s.
    const brisk = run(window + 12_500);
    expect(brisk[0]).toBe(0);
    expect(Math.max(...gapsOf(brisk))).toBeLessThanOrEqual(12_500);
    expect(brisk.at(-1)!).toBeGreaterThanOrEqual(window);
    expect(brisk.at(-2)!).toBeLessThan(window);
    // Within the per-order limit in every window of its length.
    const limit = DEFAULT_LIMITS.statusPerOrder;
    if (limit === false) throw new Error('statusPerOrder is on by default');
    for (const from of brisk) expect(brisk.filter((time) => time >= from && time < from + limit.windowSeconds * 1000).length).toBeLessThanOrEqual(limit.limit);
    console.log(`brisk window: ${brisk.length} checks in ${window / 1000} s, at most ${Math.max(...gapsOf(brisk))} ms apart`);
    // After it, while callbacks are counted on (30 minutes after the last one): once in quietCheckMinutes.
    const after = run(25 * 60_000).filter((time) => time > brisk.at(-1)!);
    expect(gapsOf([brisk.at(-1)!, ...after])).toEqual([DEFAULT_STREAM_OPTIONS.quietCheckMinutes * 60_000]);
  });

  it('starts the brisk schedule again at each action of the payer, and only ever moves the window later', () => {
    const { pace, watch, run, start, advance, at } = setUp();
    pace.callbackHeard();
    pace.acted(watch, start);
    run(DEFAULT_STREAM_OPTIONS.briskSeconds * 1000 + 20 * 60_000);
    expect(at()).toBeGreaterThan(DEFAULT_STREAM_OPTIONS.briskSeconds * 1000); // quiet now
    advance(60_000);
    const acted = start + at();
    pace.acted(watch, acted); // the payer types a code
    expect(watch.step).toBe(0);
    expect(pace.dueAt(watch)).toBeLessThanOrEqual(acted + DEFAULT_STREAM_OPTIONS.pollIntervalMs);
    // An older action (a cue that came late) changes nothing.
    watch.step = 7;
    pace.acted(watch, acted - 10_000);
    expect(watch.step).toBe(7);
  });

  it('follows the element’s schedule, backing off to a minute, past the window while callbacks cannot be counted on', () => {
    const { pace, watch, run, start } = setUp();
    pace.acted(watch, start);
    const times = run(30 * 60_000);
    const late = gapsOf(times.filter((time) => time > DEFAULT_STREAM_OPTIONS.briskSeconds * 1000 + 60_000));
    expect(late.every((gap) => gap === 24 * DEFAULT_STREAM_OPTIONS.pollIntervalMs)).toBe(true);
  });
});
