/**
 * Remembers which callbacks were handled, by `notifyId`, so that the service's retries reach the merchant's
 * `onCallback` once. A delivery that arrives while the same `notifyId` is still being handled is not
 * acknowledged: if that handling fails, the service must send it again. The default store lives in memory;
 * a shared store (Redis, a database table with a unique key) replaces it when the merchant runs more than
 * one process.
 */
import { BoundedMap } from './bounded-map.js';

/**
 * What a claim found: `new` — nobody handled this `notifyId` (or an earlier handling failed or was abandoned):
 * handle it now; `busy` — it is being handled at this moment; `done` — it was handled.
 */
export type CallbackClaim = 'new' | 'busy' | 'done';

/**
 * Thrown by a shared store that cannot be reached: the callback is answered 503, so that the service sends it
 * again later, and nothing is logged for it (the store says once that it is down).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

export interface CallbackStore {
  /** Marks `notifyId` as being handled when nobody is handling it and it was not handled yet. */
  claim(notifyId: string): CallbackClaim | Promise<CallbackClaim>;
  /** `onCallback` succeeded: later deliveries of `notifyId` are duplicates. */
  complete(notifyId: string): void | Promise<void>;
  /** `onCallback` failed: forgets the claim, so that the service's next delivery is handled. */
  release(notifyId: string): void | Promise<void>;
}

export interface MemoryCallbackStoreOptions {
  /** How long a handled notifyId is remembered. Default 73 hours: the service retries for 72. */
  ttlMs?: number;
  /**
   * How long a claim protects a handling that never completed nor failed (its process died). Default 60 s;
   * after it, the next delivery is handled again.
   */
  leaseMs?: number;
  /** At most this many ids are kept; the least recently claimed or completed go first. Default 100 000. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  state: 'busy' | 'done';
  expiresAt: number;
}

export class MemoryCallbackStore implements CallbackStore {
  readonly #entries: BoundedMap<string, Entry>;
  readonly #ttlMs: number;
  readonly #leaseMs: number;
  readonly #now: () => number;

  constructor(options: MemoryCallbackStoreOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 73 * 3_600_000;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#entries = new BoundedMap(options.maxEntries ?? 100_000);
    this.#now = options.now ?? Date.now;
  }

  claim(notifyId: string): CallbackClaim {
    const now = this.#now();
    const entry = this.#entries.get(notifyId);
    if (entry && entry.expiresAt > now) return entry.state;
    this.#entries.set(notifyId, { state: 'busy', expiresAt: now + this.#leaseMs });
    return 'new';
  }

  complete(notifyId: string): void {
    this.#entries.set(notifyId, { state: 'done', expiresAt: this.#now() + this.#ttlMs });
  }

  release(notifyId: string): void {
    this.#entries.delete(notifyId);
  }

  get size(): number {
    return this.#entries.size;
  }
}
