/** The callbacks' store in memory: one process (the default). */
import { BoundedMap } from '../bounded-map.js';
import type { CallbackClaim, CallbackStore } from './port.js';

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
