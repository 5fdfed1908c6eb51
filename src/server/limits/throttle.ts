/**
 * Counting a call against the kit's limits (table.ts) in a throttle store (src/server/stores/throttle): a throttled
 * call never reaches the service, and is answered `TOO_MANY_REQUESTS` naming its limit.
 */
import { errorEnvelope } from '../../core/index.js';
import { envelopeAnswer, type Answer } from '../http/http.js';
import { STORE_KEYS } from '../stores/keys.js';
import type { MemoryThrottleStore } from '../stores/throttle/memory.js';
import type { ThrottleStore } from '../stores/throttle/port.js';
import type { OpenLimitName, RateLimitName, ThrottleLimits } from './table.js';

export interface Throttled {
  limit: RateLimitName | OpenLimitName;
  retryAfterSeconds: number;
}

/**
 * Counts one call against each `[limit, key]` pair in order, and stops at the first that refuses it. Keys name
 * what is limited; each limit counts in a space of its own (src/server/stores/keys.ts).
 */
export async function throttle(
  store: ThrottleStore,
  limits: ThrottleLimits,
  checks: readonly (readonly [RateLimitName, string | undefined])[],
): Promise<Throttled | undefined> {
  for (const [name, key] of checks) {
    const limit = limits[name];
    if (limit === false || key === undefined || key === '') continue;
    const result = await store.hit(STORE_KEYS.count(name, key), limit.limit, limit.windowSeconds * 1000);
    if (!result.allowed) return { limit: name, retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)) };
  }
  return undefined;
}

/**
 * Counts `cost` against each `[limit, key]` pair, all or none: a refusal gives back what this call counted, so that what
 * is left of a window stays for a smaller call (a beacon of 20 timings past a limit leaves room for one of 5).
 */
export async function admit(
  store: ThrottleStore,
  limits: ThrottleLimits,
  checks: readonly (readonly [RateLimitName, string | undefined])[],
  cost: number,
): Promise<Throttled | undefined> {
  const counted: { key: string; limit: number; windowMs: number }[] = [];
  for (const [name, key] of checks) {
    const limit = limits[name];
    if (limit === false || key === undefined || key === '') continue;
    const count = { key: STORE_KEYS.count(name, key), limit: limit.limit, windowMs: limit.windowSeconds * 1000 };
    counted.push(count);
    const result = await store.hit(count.key, count.limit, count.windowMs, cost);
    if (!result.allowed) {
      for (const given of counted) await store.hit(given.key, given.limit, given.windowMs, -cost);
      return { limit: name, retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)) };
    }
  }
  return undefined;
}

/** Gives back one count of `name` for `key` (a call that, after all, did not spend what the limit guards). */
export async function giveBack(store: ThrottleStore, limits: ThrottleLimits, name: RateLimitName, key: string): Promise<void> {
  const limit = limits[name];
  if (limit !== false) await store.hit(STORE_KEYS.count(name, key), limit.limit, limit.windowSeconds * 1000, -1);
}

/** The `Retry-After` of a refusal for want of an open place: nobody knows when one frees (the element tries again after 30 s). */
export const OPEN_RETRY_AFTER_SECONDS = 30;

/**
 * Takes a place under each `[limit, key]` pair at once, or none: a refusal names the first limit with no place
 * left. `fallback` counts in this process for a store that cannot hold places.
 */
export async function hold(
  store: ThrottleStore,
  fallback: MemoryThrottleStore,
  limits: ThrottleLimits,
  checks: readonly (readonly [OpenLimitName, string | undefined])[],
): Promise<{ held: true; release(): void } | { held: false; refused: Throttled & { limit: OpenLimitName }; limit: number }> {
  const counted = checks.flatMap(([name, key]) => {
    const limit = limits[name];
    return limit === false || key === undefined || key === '' ? [] : [{ name, place: { key: STORE_KEYS.place(name, key), limit: limit.limit } }];
  });
  const holder = typeof store.hold === 'function' ? store : fallback;
  const holding = await holder.hold!(counted.map(({ place }) => place));
  if (holding.held) return holding;
  const full = counted[holding.full]!;
  return { held: false, refused: { limit: full.name, retryAfterSeconds: OPEN_RETRY_AFTER_SECONDS }, limit: full.place.limit };
}

/** The answer to a throttled call: `TOO_MANY_REQUESTS`, naming the limit, with `Retry-After`. */
export function tooMany(throttled: Throttled, message = `too many requests, please try again in ${throttled.retryAfterSeconds} seconds.`, named = true): Answer {
  const answer = errorEnvelope('TOO_MANY_REQUESTS', {
    message,
    data: named ? { limit: throttled.limit, retryAfterSeconds: throttled.retryAfterSeconds } : { retryAfterSeconds: throttled.retryAfterSeconds },
  });
  return envelopeAnswer(answer, { 'Retry-After': String(throttled.retryAfterSeconds) });
}
