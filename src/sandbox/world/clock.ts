/**
 * The sandbox's clock: real time plus an offset that tests and the demo move forward, so that an order's
 * expiry or 72 hours of callback retries pass in a moment.
 */
export class SandboxClock {
  #offsetMs = 0;

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the sandbox clock only moves forward');
    if (this.now() + ms > LATEST_TIME) throw new RangeError('the sandbox clock stops at the end of the year 9999');
    this.#offsetMs += ms;
  }

  reset(): void {
    this.#offsetMs = 0;
  }

  /** Takes up an offset saved earlier (the data file): sandbox time goes on from where it was ahead of real time. */
  restore(offsetMs: number): void {
    if (!Number.isFinite(offsetMs) || offsetMs < 0 || Date.now() + offsetMs > LATEST_TIME) throw new RangeError('the saved clock offset is out of range');
    this.#offsetMs = offsetMs;
  }
}

export const MINUTE = 60_000;
/**
 * The last moment the clock reaches: dates past it lose their four-digit year (order numbers, ISO dates), and
 * some 270 000 years later JavaScript cannot write them at all.
 */
export const LATEST_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const HOUR = 60 * MINUTE;
