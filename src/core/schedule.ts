/**
 * How both sides of the checkout pace themselves: the timers a clock gives (a page's, Node's, a test's fake one),
 * and the status polling schedule — the element's, which the kit's status stream follows for it while callbacks
 * cannot be counted on, so that a payer is served at the same pace whichever side asks.
 */
export interface Timers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Multiples of the base interval between status checks; the last repeats. A payer who has just paid is usually
 * looking, so the first minute is brisk (with the default 2.5 s, 24 checks: a payment is seen within about 2.5 s);
 * then the wait stretches to 5, 7.5, 12.5, 20, 30, 45 s and a minute, so that 30 minutes of waiting cost 57
 * checks. Coming back to the tab starts the brisk minute again.
 */
export const POLL_BACKOFF: readonly number[] = [...Array<number>(24).fill(1), 2, 3, 5, 8, 12, 18, 24];

export const DEFAULT_POLL_INTERVAL_MS = 2_500;

/** The wait before status check `step` (counted from 0) of a schedule whose base interval is `intervalMs`. */
export function pollDelay(step: number, intervalMs: number): number {
  return (POLL_BACKOFF[Math.min(step, POLL_BACKOFF.length - 1)] ?? 1) * intervalMs;
}
