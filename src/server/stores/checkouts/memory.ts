/** What the kit knows of each checkout, in memory: one process (the default). */
import type { Amount, AttemptNote } from '../../../core/index.js';
import { BoundedMap } from '../bounded-map.js';
import { CHECKOUT_RECORD_TTL_MS, type CheckoutRecord, type CheckoutStore } from './port.js';

export interface MemoryCheckoutStoreOptions {
  /** At most this many checkouts are kept; the least recently used go first. Default 100 000. */
  maxEntries?: number;
  ttlMs?: number;
  now?: () => number;
}

interface Entry {
  record: CheckoutRecord;
  expiresAt: number;
}

export class MemoryCheckoutStore implements CheckoutStore {
  readonly #entries: BoundedMap<string, Entry>;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: MemoryCheckoutStoreOptions = {}) {
    this.#entries = new BoundedMap(options.maxEntries ?? 100_000);
    this.#ttlMs = options.ttlMs ?? CHECKOUT_RECORD_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  read(checkout: string): CheckoutRecord | undefined {
    const entry = this.#entries.get(checkout);
    return entry && entry.expiresAt > this.#now() ? entry.record : undefined;
  }

  seen(checkout: string, attempts: number, legacy: number): void {
    const record = this.read(checkout);
    this.#write(checkout, { ...record, forwarded: Math.max(record?.forwarded ?? 0, attempts), amounts: record?.amounts ?? {}, legacy });
  }

  forwarding(checkout: string, attempt: number, amount: Amount, note?: AttemptNote): void {
    const record = this.read(checkout);
    this.#write(checkout, {
      ...record,
      forwarded: Math.max(record?.forwarded ?? 0, attempt),
      amounts: { ...record?.amounts, [attempt]: { total: amount.total, currency: amount.currency } },
      legacy: record?.legacy ?? (attempt === 1 ? 0 : undefined),
      ...(note ? { notes: { ...record?.notes, [attempt]: note } } : {}),
    });
  }

  noted(checkout: string, attempt: number, note: AttemptNote): void {
    const record = this.read(checkout);
    this.#write(checkout, { ...record, forwarded: Math.max(record?.forwarded ?? 0, attempt), amounts: record?.amounts ?? {}, notes: { ...record?.notes, [attempt]: note } });
  }

  #write(checkout: string, record: CheckoutRecord): void {
    this.#entries.set(checkout, { record, expiresAt: this.#now() + this.#ttlMs });
  }
}
