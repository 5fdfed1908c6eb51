/** The throttle's counts and open places in memory: one process (the default). */
import { BoundedMap } from '../bounded-map.js';
import type { Holding, Place, ThrottleResult, ThrottleStore } from './port.js';

export interface MemoryThrottleStoreOptions {
  /** At most this many windows are kept; the least recently counted go first. Default 100 000. */
  maxEntries?: number;
  now?: () => number;
}

export class MemoryThrottleStore implements ThrottleStore {
  readonly #windows: BoundedMap<string, { count: number; endsAt: number }>;
  /** Places held, by key: only what is open now, so never evicted. */
  readonly #held = new Map<string, number>();
  readonly #now: () => number;

  constructor(options: MemoryThrottleStoreOptions = {}) {
    this.#windows = new BoundedMap(options.maxEntries ?? 100_000);
    this.#now = options.now ?? Date.now;
  }

  hit(key: string, limit: number, windowMs: number, cost = 1): ThrottleResult {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || window.endsAt <= now) {
      if (cost <= 0) return { allowed: true, retryAfterMs: 0 };
      window = { count: 0, endsAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count = Math.max(0, window.count + cost);
    return window.count <= limit ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs: window.endsAt - now };
  }

  hold(places: readonly Place[]): Holding {
    const full = places.findIndex(({ key, limit }) => (this.#held.get(key) ?? 0) >= limit);
    if (full >= 0) return { held: false, full };
    for (const { key } of places) this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
    let released = false;
    return {
      held: true,
      release: () => {
        if (released) return;
        released = true;
        for (const { key } of places) {
          const left = (this.#held.get(key) ?? 1) - 1;
          if (left > 0) this.#held.set(key, left);
          else this.#held.delete(key);
        }
      },
    };
  }
}
