/**
 * The orders the kit created and has not seen settled (src/server/reconciliation): in memory for one process, in Redis
 * for several, where a sweep takes each due order under a lease, so that one process asks about it.
 */
import type { CheckoutOf } from '../../checkouts/walk.js';

/** An order the kit created and has not seen settled. */
export interface TrackedOrder {
  orderNo: string;
  reference: string;
  country: string;
  amount: { total: number; currency: string };
  /** When the order expires, on the kit's clock (epoch ms). */
  deadline: number;
  /** Its checkout and attempt, when a checkout token decided it (the shop hears it as a callback's). */
  checkout?: CheckoutOf | undefined;
}

export interface ReconciliationStore {
  /**
   * Keeps an order, due to be asked about at `dueAt`; false when the store is full (the order is not kept). With
   * `keep`, an order kept already stays as it is (its due time, its checkout): a status answer that tells of an order
   * again changes nothing.
   */
  track(order: TrackedOrder, dueAt: number, keep?: boolean): boolean | Promise<boolean>;
  /** At most `limit` orders due by `now`, earliest first, each taken until `until` (no other sweep takes it meanwhile). */
  take(now: number, limit: number, until: number): TrackedOrder[] | Promise<TrackedOrder[]>;
  /**
   * Due again at `dueAt`, unless it is due sooner already (a query of the kit's own saw it settle while a sweep
   * asked about it); nothing happens when it was forgotten meanwhile.
   */
  reschedule(orderNo: string, dueAt: number): void | Promise<void>;
  /** Settled, or given up on: forgotten. */
  forget(orderNo: string): void | Promise<void>;
}
