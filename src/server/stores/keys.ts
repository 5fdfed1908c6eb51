/**
 * Every key the kit's stores are given, decided here once. Two layers:
 *
 * - `STORE_KEYS`: the key a store's port is given (a store of the shop's own gets the same), for the stores whose
 *   port takes keys rather than things: the callbacks' store holds outcomes and notifications side by side, the
 *   throttle holds counts and open places. Each space starts with a word no other space of that store starts with,
 *   and a free value (an id the service or a browser chose) is always the last part, or sits before a fixed word
 *   (`outcome:<orderNo>:<status>`, whose status is one of the specification's, with no colon): so no value of one space
 *   spells a key of another, however it is written.
 * - `redisKeys(prefix)`: where each store keeps its keys in Redis's one keyspace, under the merchant's prefix. Each
 *   store has a word of its own after the prefix (`callback:`, `checkout:`, `ticket:`…), and the keys one script
 *   reads together share a hash tag (`{<prefix>open}`, `{<prefix>reconcile}`), since a cluster runs a script on one
 *   node. In memory each store is a map of its own, so only the spaces of one store could meet there.
 *
 * test/property/store-keys.test.ts searches, for arbitrary values, every way an attacker could spell another space's
 * key, in memory and in Redis. Outcomes keep the keys they had before notifications moved to `notify:` (docs/
 * reliability.md), so that outcomes handled before a rolling deploy still count after it.
 */
import type { PaymentStatus } from '../../core/index.js';

export const STORE_KEYS = {
  /** A settled order's outcome, handed to `onCallback` once whichever callback (or status query) brought it. */
  outcome: (orderNo: string, status: PaymentStatus) => `outcome:${orderNo}:${status}`,
  /** Any other callback, by the service's `notifyId`: a space of its own, so that no id spells an outcome's key. */
  notification: (notifyId: string) => `notify:${notifyId}`,
  /**
   * A rate limit's count of one thing it counts (an order, a client, a phone…). `limit` is a name of the limits table
   * (src/server/limits/table.ts), a word without a colon.
   */
  count: (limit: string, what: string) => `${limit}:${what}`,
  /** A place under an open-at-once limit, for one thing it counts. */
  place: (limit: string, what: string) => `${limit}:${what}`,
} as const;

/** The keys (and the one channel) of one merchant's prefix in Redis. */
export interface RedisKeys {
  /** A key of the callbacks' store (`STORE_KEYS.outcome` or `.notification`). */
  callback(key: string): string;
  /** A checkout's record (src/server/stores/checkouts). */
  checkout(checkout: string): string;
  /** A rate limit's count (`STORE_KEYS.count`). */
  count(key: string): string;
  /** An open-at-once limit's places (`STORE_KEYS.place`): a hash of process → places it holds. */
  place(key: string): string;
  /** The processes' leases on their places: a key no place's key is, since those all have a colon after the limit. */
  readonly leases: string;
  /** A single-use ticket, by its id (base64url). */
  ticket(id: string): string;
  /** The orders to reconcile: their due times, and the orders. */
  readonly reconcileDue: string;
  readonly reconcileOrders: string;
  /** Written once; gone or changed when Redis came back without the kit's data (src/server/redis/epoch.ts). */
  readonly epoch: string;
  /** A kit process's lease (src/server/redis/process-lease.ts), by the id the process chose for itself. */
  process(id: string): string;
  /** The status bus's pub/sub channel (channels are not keys, but carry the prefix all the same). */
  readonly statusChannel: string;
}

export function redisKeys(prefix: string): RedisKeys {
  const open = `{${prefix}open}`;
  const reconcile = `{${prefix}reconcile}`;
  return Object.freeze({
    callback: (key: string) => `${prefix}callback:${key}`,
    checkout: (checkout: string) => `${prefix}checkout:${checkout}`,
    count: (key: string) => `${prefix}throttle:${key}`,
    place: (key: string) => `${open}:${key}`,
    leases: `${open}:leases`,
    ticket: (id: string) => `${prefix}ticket:${id}`,
    reconcileDue: `${reconcile}:due`,
    reconcileOrders: `${reconcile}:orders`,
    epoch: `${prefix}epoch`,
    process: (id: string) => `${prefix}process:${id}`,
    statusChannel: `${prefix}status`,
  });
}
