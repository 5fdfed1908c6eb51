/**
 * When a status stream asks the service about its order next. Three paces:
 *
 * - **brisk** for `briskSeconds` after the payer's last action on the order — its stream opened (or reopened), a
 *   create, an OTP or PIN or resend of it answered, a status the payer's page asked for — whatever callbacks do: the
 *   element's schedule started again at that action, its gap held at `BRISK_CAP` intervals (12.5 s by default), so
 *   that a payer who pays within the window sees it within one gap even when the callback is lost. A payer who has
 *   just acted is usually the one about to pay;
 * - **quiet** (`quietCheckMinutes`) after that window while callbacks can be counted on (one verified by any process
 *   lately, and the status bus up): the callbacks carry the news, the queries only guard against a lost one;
 * - otherwise the element's own schedule (src/core/schedule.ts), backing off to a minute.
 *
 * Every check a stream makes counts against the order's `statusPerOrder` limit (payments/status.ts), across processes
 * with a shared throttle store: the brisk pace never asks more than the limit allows.
 */
import { pollDelay } from '../../core/index.js';
import type { ResolvedStreamOptions } from '../config/streams.js';
import type { OrderWatch } from './watch.js';

/** The longest gap between brisk checks, in multiples of `pollIntervalMs`: 12.5 s with the default 2.5 s. */
export const BRISK_CAP = 5;

export class StreamPace {
  readonly #limits: ResolvedStreamOptions;
  readonly #now: () => number;
  #busLive: boolean;
  #lastCallbackAt: number | undefined;

  constructor(limits: ResolvedStreamOptions, now: () => number, busLive: boolean) {
    this.#limits = limits;
    this.#now = now;
    this.#busLive = busLive;
  }

  /** Whether the streams count on callbacks now (and query the service once in a long while, past a brisk window). */
  get countingOnCallbacks(): boolean {
    const last = this.#lastCallbackAt;
    return this.#busLive && last !== undefined && this.#now() - last <= this.#limits.callbackTrustMinutes * 60_000;
  }

  /** A callback was verified (by any process): true when the streams start counting on callbacks with it. */
  callbackHeard(): boolean {
    const was = this.countingOnCallbacks;
    this.#lastCallbackAt = this.#now();
    return !was && this.countingOnCallbacks;
  }

  set busLive(live: boolean) {
    this.#busLive = live;
  }

  /** The payer acted on the watch's order at `at`: brisk again from then, its schedule started again. */
  acted(watch: OrderWatch, at: number): void {
    const until = at + this.#limits.briskSeconds * 1000;
    if (until <= watch.briskUntil) return;
    watch.briskUntil = until;
    watch.step = 0;
  }

  /** When the watch's order is asked about next (never past the end of its streams). */
  dueAt(watch: OrderWatch): number {
    const interval = this.#limits.pollIntervalMs;
    const delay = pollDelay(watch.step, interval);
    let gap: number;
    if (watch.lastCheckAt < watch.briskUntil) gap = Math.min(delay, BRISK_CAP * interval);
    else gap = this.countingOnCallbacks ? this.#limits.quietCheckMinutes * 60_000 : delay;
    return Math.min(watch.lastCheckAt + gap, watch.endsAt);
  }
}
