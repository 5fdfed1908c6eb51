/**
 * Remembers which callbacks were handled, by `notifyId`, so that the service's retries reach the merchant's
 * `onCallback` once. A delivery that arrives while the same `notifyId` is still being handled is not
 * acknowledged: if that handling fails, the service must send it again. The default store lives in memory;
 * a shared store (Redis, a database table with a unique key) replaces it when the merchant runs more than
 * one process.
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
