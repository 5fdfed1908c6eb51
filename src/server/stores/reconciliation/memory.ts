/** The orders to reconcile in memory: one process (the default). */
import type { ReconciliationStore, TrackedOrder } from './port.js';

export interface MemoryReconciliationStoreOptions {
  /** Orders kept at most; beyond it new orders are not kept (and the kit says so once). Default 100 000. */
  maxOrders?: number;
}

/** One process's orders. Each sweep walks them all: fine for the bound's 100 000, once every few seconds. */
export class MemoryReconciliationStore implements ReconciliationStore {
  readonly #orders = new Map<string, { order: TrackedOrder; dueAt: number }>();
  readonly #max: number;

  constructor(options: MemoryReconciliationStoreOptions = {}) {
    this.#max = options.maxOrders ?? 100_000;
  }

  get size(): number {
    return this.#orders.size;
  }

  track(order: TrackedOrder, dueAt: number, keep = false): boolean {
    if (keep && this.#orders.has(order.orderNo)) return true;
    if (this.#orders.size >= this.#max && !this.#orders.has(order.orderNo)) return false;
    this.#orders.set(order.orderNo, { order, dueAt });
    return true;
  }

  take(now: number, limit: number, until: number): TrackedOrder[] {
    const due = [...this.#orders.values()].filter((entry) => entry.dueAt <= now);
    due.sort((a, b) => a.dueAt - b.dueAt);
    return due.slice(0, limit).map((entry) => {
      entry.dueAt = until;
      return entry.order;
    });
  }

  reschedule(orderNo: string, dueAt: number): void {
    const entry = this.#orders.get(orderNo);
    if (entry && dueAt < entry.dueAt) entry.dueAt = dueAt;
  }

  forget(orderNo: string): void {
    this.#orders.delete(orderNo);
  }
}
