/**
 * Remembers which callbacks were handled, by key (src/server/stores/keys.ts: a settled order's outcome, or any other
 * notification by its `notifyId`, each in a space of its own), so that the service's retries reach the merchant's
 * `onCallback` once. A delivery that arrives while the same `notifyId` is still being handled is not
 * acknowledged: if that handling fails, the service must send it again. The default store lives in memory;
 * a shared store (Redis, a database table with a unique key) replaces it when the merchant runs more than
 * one process.
 *
 * A claim neither completed nor released is given back after a lease, so that a handling whose process died holds
 * nobody up for long. How long a claim outlasts its lease while its handling still runs is the store's to say: the
 * Redis store holds a claim while its process's lease lives (a slow `onCallback` keeps it; a dead or cut-off process's
 * is taken over once its lease lapsed, `leaseMs`, 30 s by default); the memory store, in one process that cannot tell a slow handling from one that never
 * ends, takes a handling that runs past its lease (60 s by default) as abandoned, and hands the next delivery over.
 * test/server/stores/callbacks.contract.test.ts states both.
 */
/**
 * What a claim found: `new` — nobody handled this `notifyId` (or an earlier handling failed or was abandoned):
 * handle it now; `busy` — it is being handled at this moment; `done` — it was handled.
 */
export type CallbackClaim = 'new' | 'busy' | 'done';

export interface CallbackStore {
  /** Marks `notifyId` as being handled when nobody is handling it and it was not handled yet. */
  claim(notifyId: string): CallbackClaim | Promise<CallbackClaim>;
  /** `onCallback` succeeded: later deliveries of `notifyId` are duplicates. */
  complete(notifyId: string): void | Promise<void>;
  /** `onCallback` failed: forgets the claim, so that the service's next delivery is handled. */
  release(notifyId: string): void | Promise<void>;
}
