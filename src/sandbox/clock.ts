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
    this.#offsetMs += ms;
  }

  reset(): void {
    this.#offsetMs = 0;
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
