/**
 * Remembers which callbacks were handled, by `notifyId`, so that the service's retries reach the merchant's
 * `onCallback` once. The default lives in memory; a shared store (Redis, a database table with a unique key)
 * replaces it when the merchant runs more than one process.
 */
export interface CallbackStore {
  /** Records `notifyId`; true when it was not recorded yet (this delivery is the one to handle). */
  claim(notifyId: string): boolean | Promise<boolean>;
  /** Forgets a claim whose handling failed, so that the service's next retry is handled. */
  release(notifyId: string): void | Promise<void>;
}

export interface MemoryCallbackStoreOptions {
  /** How long a notifyId is remembered. Default 73 hours: the service retries for 72. */
  ttlMs?: number;
  /** At most this many ids are kept; the oldest go first. Default 100 000. */
  maxEntries?: number;
  now?: () => number;
}

export class MemoryCallbackStore implements CallbackStore {
  readonly #claims = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: MemoryCallbackStoreOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 73 * 3_600_000;
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  claim(notifyId: string): boolean {
    const now = this.#now();
    const expiresAt = this.#claims.get(notifyId);
    if (expiresAt !== undefined && expiresAt > now) return false;
    this.#claims.delete(notifyId);
    this.#evict(now);
    this.#claims.set(notifyId, now + this.#ttlMs);
    return true;
  }

  release(notifyId: string): void {
    this.#claims.delete(notifyId);
  }

  get size(): number {
    return this.#claims.size;
  }

  /** Insertion order is expiry order (one ttl for all), so expired and overflowing entries are at the front. */
  #evict(now: number): void {
    for (const [id, expiresAt] of this.#claims) {
      if (expiresAt > now && this.#claims.size < this.#maxEntries) break;
      this.#claims.delete(id);
    }
  }
}
