/** The orders kept for tickets, in memory: one process (the default). */
import { BoundedMap } from '../bounded-map.js';
import type { TicketStore } from './port.js';

export interface MemoryTicketStoreOptions {
  /**
   * At most this many orders are kept; the least recently used go first (its payer's create is then refused as a
   * used ticket, and the element asks for a new one). Default 20 000: about 20 MB at the largest order.
   */
  maxEntries?: number;
  now?: () => number;
}

export class MemoryTicketStore implements TicketStore {
  readonly #entries: BoundedMap<string, { order: string; expiresAt: number }>;
  readonly #now: () => number;

  constructor(options: MemoryTicketStoreOptions = {}) {
    this.#entries = new BoundedMap(options.maxEntries ?? 20_000);
    this.#now = options.now ?? Date.now;
  }

  async keep(id: string, order: string, ttlMs: number): Promise<void> {
    this.#entries.set(id, { order, expiresAt: this.#now() + ttlMs });
  }

  async read(id: string): Promise<string | undefined> {
    return this.#current(id);
  }

  async take(id: string): Promise<string | undefined> {
    // Read and deleted before anything is awaited: two creates that race for it never both get it.
    const order = this.#current(id);
    this.#entries.delete(id);
    return order;
  }

  #current(id: string): string | undefined {
    const entry = this.#entries.get(id);
    return entry && entry.expiresAt > this.#now() ? entry.order : undefined;
  }
}
