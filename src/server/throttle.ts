/**
 * Counting against the kit's limits (limits.ts): calls in fixed windows, and places held while something stays
 * open (a status stream). A throttled call never reaches the service. Counts live behind a small store
 * interface: memory by default, a shared store (Redis) when the kit runs in several processes.
 */
import { errorEnvelope } from '../core/index.js';
import { BoundedMap } from './bounded-map.js';
import { envelopeAnswer, type Answer } from './http.js';
import type { OpenLimitName, RateLimitName, ThrottleLimits } from './limits.js';

export interface ThrottleResult {
  allowed: boolean;
  /** When the window that refused the call ends; 0 when allowed. */
  retryAfterMs: number;
}

/** One of `limit` places under `key`. */
export interface Place {
  key: string;
  limit: number;
}

/** Places taken (give them back with `release`, once), or the index of the first place that had none left. */
export type Holding = { held: true; release(): void } | { held: false; full: number };

export interface ThrottleStore {
  /**
   * Counts `cost` calls (default 1) against `key` in the current window of `windowMs`, and says whether the count
   * is within `limit`. Windows are fixed: they start at the first call and end `windowMs` later. A negative cost
   * gives counts back (a code the service accepted after all); it never starts a window.
   */
  hit(key: string, limit: number, windowMs: number, cost?: number): ThrottleResult | Promise<ThrottleResult>;
  /**
   * Takes a place under every key at once, if each has one left, for as long as something stays open. Without
   * it, a kit counts what is open in its own process only.
   */
  hold?(places: readonly Place[]): Holding | Promise<Holding>;
}

export interface MemoryThrottleStoreOptions {
  /** At most this many windows are kept; the least recently counted go first. Default 100 000. */
  maxEntries?: number;
  now?: () => number;
}

export class MemoryThrottleStore implements ThrottleStore {
  readonly #windows: BoundedMap<string, { count: number; endsAt: number }>;
  /** Places held, by key: only what is open now, so never evicted. */
  readonly #held = new Map<string, number>();
  readonly #now: () => number;

  constructor(options: MemoryThrottleStoreOptions = {}) {
    this.#windows = new BoundedMap(options.maxEntries ?? 100_000);
    this.#now = options.now ?? Date.now;
  }

  hit(key: string, limit: number, windowMs: number, cost = 1): ThrottleResult {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || window.endsAt <= now) {
      if (cost <= 0) return { allowed: true, retryAfterMs: 0 };
      window = { count: 0, endsAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count = Math.max(0, window.count + cost);
    return window.count <= limit ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs: window.endsAt - now };
  }

  hold(places: readonly Place[]): Holding {
    const full = places.findIndex(({ key, limit }) => (this.#held.get(key) ?? 0) >= limit);
    if (full >= 0) return { held: false, full };
    for (const { key } of places) this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
    let released = false;
    return {
      held: true,
      release: () => {
        if (released) return;
        released = true;
        for (const { key } of places) {
          const left = (this.#held.get(key) ?? 1) - 1;
          if (left > 0) this.#held.set(key, left);
          else this.#held.delete(key);
        }
      },
    };
  }
}

export interface Throttled {
  limit: RateLimitName | OpenLimitName;
  retryAfterSeconds: number;
}

/**
 * Counts one call against each `[limit, key]` pair in order, and stops at the first that refuses it. Keys name
 * what is limited; they are namespaced by limit here. Answers at once when the store does (memory), so that a
 * create does not wait a turn per limit; a promise only when the store answers with one (Redis).
 */
export function throttle(
  store: ThrottleStore,
  limits: ThrottleLimits,
  checks: readonly (readonly [RateLimitName, string | undefined])[],
  from = 0,
): Throttled | undefined | Promise<Throttled | undefined> {
  for (let index = from; index < checks.length; index++) {
    const [name, key] = checks[index]!;
    const limit = limits[name];
    if (limit === false || key === undefined || key === '') continue;
    const result = store.hit(`${name}:${key}`, limit.limit, limit.windowSeconds * 1000);
    if (isThenable(result)) return Promise.resolve(result).then((settled) => refusal(name, settled) ?? throttle(store, limits, checks, index + 1));
    const refused = refusal(name, result);
    if (refused) return refused;
  }
  return undefined;
}

/** Gives back one count of `name` for `key` (a call that, after all, did not spend what the limit guards). */
export async function giveBack(store: ThrottleStore, limits: ThrottleLimits, name: RateLimitName, key: string): Promise<void> {
  const limit = limits[name];
  if (limit !== false) await store.hit(`${name}:${key}`, limit.limit, limit.windowSeconds * 1000, -1);
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
    return limit === false || key === undefined || key === '' ? [] : [{ name, place: { key: `${name}:${key}`, limit: limit.limit } }];
  });
  const holder = typeof store.hold === 'function' ? store : fallback;
  const holding = await holder.hold!(counted.map(({ place }) => place));
  if (holding.held) return holding;
  const full = counted[holding.full]!;
  return { held: false, refused: { limit: full.name, retryAfterSeconds: OPEN_RETRY_AFTER_SECONDS }, limit: full.place.limit };
}

/** The answer to a throttled call: `TOO_MANY_REQUESTS`, naming the limit, with `Retry-After`. */
export function tooMany(throttled: Throttled, message = `too many requests, please try again in ${throttled.retryAfterSeconds} seconds.`): Answer {
  const answer = errorEnvelope('TOO_MANY_REQUESTS', {
    message,
    data: { limit: throttled.limit, retryAfterSeconds: throttled.retryAfterSeconds },
  });
  return envelopeAnswer(answer, { 'Retry-After': String(throttled.retryAfterSeconds) });
}

function isThenable(value: ThrottleResult | PromiseLike<ThrottleResult>): value is PromiseLike<ThrottleResult> {
  return typeof (value as PromiseLike<ThrottleResult>).then === 'function';
}

function refusal(name: RateLimitName, result: ThrottleResult): Throttled | undefined {
  return result.allowed ? undefined : { limit: name, retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)) };
}
