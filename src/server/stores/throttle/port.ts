/**
 * Counts against the kit's limits (src/server/limits): calls in fixed windows, and places held while something stays
 * open (a status stream), behind a small store interface: memory by default, a shared store (Redis) when the kit runs
 * in several processes.
 */

export interface ThrottleResult {
  allowed: boolean;
  /** When the window that refused the call ends; 0 when allowed. */
  retryAfterMs: number;
}

/** One of `limit` places under `key`. */
export interface Place {
  key: string;
  limit: number;
}

/** Places taken (give them back with `release`, once), or the index of the first place that had none left. */
export type Holding = { held: true; release(): void } | { held: false; full: number };

export interface ThrottleStore {
  /**
   * Counts `cost` calls (default 1) against `key` in the current window of `windowMs`, and says whether the count
   * is within `limit`. Windows are fixed: they start at the first call and end `windowMs` later. A negative cost
   * gives counts back (a code the service accepted after all); it never starts a window.
   */
  hit(key: string, limit: number, windowMs: number, cost?: number): ThrottleResult | Promise<ThrottleResult>;
  /**
   * Takes a place under every key at once, if each has one left, for as long as something stays open. Without
   * it, a kit counts what is open in its own process only.
   */
  hold?(places: readonly Place[]): Holding | Promise<Holding>;
}
