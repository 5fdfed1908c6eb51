/**
 * Limits on what a browser can make the kit do: how often an order's OTP is sent again, how many orders one
 * checkout token or one client address may start, how many messages one phone number or mailbox receives. A
 * throttled call never reaches the service. Counts live behind a small store interface: memory by default, a
 * shared store (Redis) when the kit runs in several processes.
 */
import { BoundedMap } from './bounded-map.js';

export interface ThrottleResult {
  allowed: boolean;
  /** When the window that refused the call ends; 0 when allowed. */
  retryAfterMs: number;
}

export interface ThrottleStore {
  /**
   * Counts one call against `key` in the current window of `windowMs`, and says whether it is within `limit`.
   * Windows are fixed: they start at the first call and end `windowMs` later.
   */
  hit(key: string, limit: number, windowMs: number): ThrottleResult | Promise<ThrottleResult>;
}

export interface Limit {
  limit: number;
  windowSeconds: number;
}

/** The limits, by what they protect; `false` turns one off. */
export interface ThrottleLimits {
  /** "Send the code again" for one order. Default once per 30 s. */
  resendOtp: Limit | false;
  /** Orders started with one checkout token (its first reference and its retries). Default 10 per 10 minutes. */
  createsPerCheckout: Limit | false;
  /** Orders started from one client address (when `clientAddress` knows it). Default 30 per 10 minutes. */
  createsPerClient: Limit | false;
  /** Reference codes sent by SMS to one number. Default 5 per hour. */
  messagesPerPhone: Limit | false;
  /** Reference codes sent by email to one address. Default 5 per hour. */
  messagesPerEmail: Limit | false;
}

export const DEFAULT_LIMITS: Readonly<ThrottleLimits> = {
  resendOtp: { limit: 1, windowSeconds: 30 },
  createsPerCheckout: { limit: 10, windowSeconds: 600 },
  createsPerClient: { limit: 30, windowSeconds: 600 },
  messagesPerPhone: { limit: 5, windowSeconds: 3_600 },
  messagesPerEmail: { limit: 5, windowSeconds: 3_600 },
};

export type LimitName = keyof ThrottleLimits;

export interface MemoryThrottleStoreOptions {
  /** At most this many keys are kept; the least recently counted go first. Default 100 000. */
  maxEntries?: number;
  now?: () => number;
}

export class MemoryThrottleStore implements ThrottleStore {
  readonly #windows: BoundedMap<string, { count: number; endsAt: number }>;
  readonly #now: () => number;

  constructor(options: MemoryThrottleStoreOptions = {}) {
    this.#windows = new BoundedMap(options.maxEntries ?? 100_000);
    this.#now = options.now ?? Date.now;
  }

  hit(key: string, limit: number, windowMs: number): ThrottleResult {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return window.count <= limit ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs: window.endsAt - now };
  }
}

/** The limits in force: the defaults, with the merchant's changes, each checked. */
export function resolveLimits(given: Partial<ThrottleLimits> | undefined): ThrottleLimits {
  const limits = { ...DEFAULT_LIMITS, ...given };
  for (const [name, limit] of Object.entries(limits)) {
    if (limit === false) continue;
    const valid =
      typeof limit === 'object' &&
      limit !== null &&
      Number.isInteger(limit.limit) &&
      limit.limit >= 1 &&
      Number.isFinite(limit.windowSeconds) &&
      limit.windowSeconds > 0;
    if (!valid) throw new TypeError(`limits.${name} must be false or { limit: whole number ≥ 1, windowSeconds: > 0 }`);
  }
  return limits;
}

export interface Throttled {
  limit: LimitName;
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
  checks: readonly (readonly [LimitName, string | undefined])[],
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

function isThenable(value: ThrottleResult | PromiseLike<ThrottleResult>): value is PromiseLike<ThrottleResult> {
  return typeof (value as PromiseLike<ThrottleResult>).then === 'function';
}

function refusal(name: LimitName, result: ThrottleResult): Throttled | undefined {
  return result.allowed ? undefined : { limit: name, retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)) };
}
