/**
 * Every limit the kit puts on what a browser can make it do, in one table: what it counts, what one count is
 * keyed by, and its default. The handler applies them (src/server/payments, handler.ts), its `limits` option is typed from
 * them, and docs/limits.md lists them (test/docs/limits.test.ts holds the page to this table).
 *
 * Two kinds: a rate (`limit` calls in each fixed window of `windowSeconds`) and a ceiling on what is open at once
 * (`limit` status streams). A refused call gets envelope `TOO_MANY_REQUESTS` with `data.limit` naming the limit,
 * and `Retry-After`; it never reaches the service. A beacon's timings past a limit are dropped, and the beacon
 * answered 204 as any other (src/server/observability/timings.ts): its sender never reads the answer.
 */

/** At most `limit` calls in each fixed window of `windowSeconds` (the window starts at its first call). */
export interface Limit {
  limit: number;
  windowSeconds: number;
}

/** At most `limit` open at once. */
export interface OpenLimit {
  limit: number;
}

/** What one count of a limit is keyed by. */
export type LimitKey = 'order' | 'checkout token' | 'client' | 'phone' | 'mailbox' | 'kit';

export const LIMIT_TABLE = {
  createsPerCheckout: { counts: 'orders started', per: 'checkout token', default: { limit: 10, windowSeconds: 600 } },
  createsPerClient: { counts: 'orders started', per: 'client', default: { limit: 30, windowSeconds: 600 } },
  ticketsPerClient: { counts: 'tickets for the isolated bank account create (each runs your `authorize`)', per: 'client', default: { limit: 60, windowSeconds: 600 } },
  messagesPerPhone: { counts: 'reference code messages by SMS', per: 'phone', default: { limit: 5, windowSeconds: 3_600 } },
  messagesPerEmail: { counts: 'reference code messages by email', per: 'mailbox', default: { limit: 5, windowSeconds: 3_600 } },
  resendOtp: { counts: '"send the code again"', per: 'order', default: { limit: 1, windowSeconds: 30 } },
  wrongCodesPerOrder: { counts: 'OTP and PIN codes the service did not accept', per: 'order', default: { limit: 5, windowSeconds: 86_400 } },
  statusPerOrder: { counts: 'status queries sent to the service', per: 'order', default: { limit: 60, windowSeconds: 60 } },
  statusPerClient: { counts: 'status queries sent to the service, and checks for an order made on another device', per: 'client', default: { limit: 120, windowSeconds: 60 } },
  streamsPerOrder: { counts: 'open status streams', per: 'order', default: { limit: 10 } },
  streamsPerClient: { counts: 'open status streams', per: 'client', default: { limit: 20 } },
  streams: { counts: 'open status streams', per: 'kit', default: { limit: 10_000 } },
  // A page sends at most 20 timings a beacon, and a few beacons a checkout (hidden, gone, finished): 30 a minute is a
  // payer's checkout and a retry. The kit's whole is a bound on what forged beacons from many addresses put in the
  // shop's metrics: 100 a second.
  timingsPerClient: { counts: 'timings published from beacons', per: 'client', default: { limit: 30, windowSeconds: 60 } },
  timings: { counts: 'timings published from beacons', per: 'kit', default: { limit: 6_000, windowSeconds: 60 } },
} as const satisfies Record<string, { counts: string; per: LimitKey; default: Limit | OpenLimit }>;

export type LimitName = keyof typeof LIMIT_TABLE;

/** The limits counted in windows. */
export type RateLimitName = { [K in LimitName]: (typeof LIMIT_TABLE)[K]['default'] extends { windowSeconds: number } ? K : never }[LimitName];

/** The limits on what is open at once. */
export type OpenLimitName = Exclude<LimitName, RateLimitName>;

/** The limits in force, by name; `false` turns one off. */
export type ThrottleLimits = { [K in LimitName]: (K extends RateLimitName ? Limit : OpenLimit) | false };

export const DEFAULT_LIMITS: Readonly<ThrottleLimits> = Object.freeze(
  Object.fromEntries(Object.entries(LIMIT_TABLE).map(([name, { default: given }]) => [name, { ...given }])) as ThrottleLimits,
);

export function isOpenLimit(name: LimitName): name is OpenLimitName {
  return !('windowSeconds' in LIMIT_TABLE[name].default);
}
