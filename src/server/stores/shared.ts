/**
 * What every shared store (the Redis adapter's, or one of the shop's own) has in common: the error it throws when its
 * backend cannot be reached, and what it says of that backend's state (the readiness answer reads it).
 */

/**
 * Thrown by a shared store that cannot be reached: the callback is answered 503, so that the service sends it
 * again later, and nothing is logged for it (the store says once that it is down).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** What a shared store tells of its backend: the Redis adapter's stores do (`svc-checkout/server/redis`). */
export interface SharedStoreState {
  readonly backend: string;
  readonly available: boolean;
  /** Where writes wait for a replica: whether one acknowledges them now (docs/reliability.md). */
  readonly replicas?: 'acknowledging' | 'not-acknowledging' | undefined;
}
