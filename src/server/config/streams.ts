/** The `streams` option: the pace of the status streams, resolved (their open places are `limits`: limits.ts). */
import { DEFAULT_POLL_INTERVAL_MS, POLL_BACKOFF } from '../../core/index.js';
import { optionError } from './errors.js';
import { numberOption } from './checks.js';

/** The pace of the status streams (README, "Live status"); how many may be open is in `limits` (limits.ts). */
export interface StreamOptions {
  /** A comment line at least this often on every stream. Default 15 s. */
  heartbeatSeconds?: number;
  /** The pause a client takes before reconnecting (`retry:`). Default 3 s. */
  retrySeconds?: number;
  /** The base interval of the status queries while callbacks cannot be counted on. Default 2 500 ms. */
  pollIntervalMs?: number;
  /**
   * After the payer's last action on an order (its stream opened, a create or code of it answered, its status asked
   * for), its streams query briskly for this long whatever callbacks do — the element's schedule, at most 5 intervals
   * apart — so that a payment whose callback is lost shows within seconds. Default 300 s.
   */
  briskSeconds?: number;
  /** While callbacks arrive, past the brisk window, a status query per order this often all the same. Default 15 minutes. */
  quietCheckMinutes?: number;
  /** Callbacks are counted on for this long after the last one verified (by any process). Default 30 minutes. */
  callbackTrustMinutes?: number;
}

export type ResolvedStreamOptions = Required<StreamOptions>;

/** What one of each option counts, for its message. */
const UNITS: Record<keyof ResolvedStreamOptions, string> = {
  heartbeatSeconds: 'seconds',
  retrySeconds: 'seconds',
  pollIntervalMs: 'milliseconds',
  briskSeconds: 'seconds',
  quietCheckMinutes: 'minutes',
  callbackTrustMinutes: 'minutes',
};
export const DEFAULT_STREAM_OPTIONS: Readonly<ResolvedStreamOptions> = {
  heartbeatSeconds: 15,
  retrySeconds: 3,
  pollIntervalMs: DEFAULT_POLL_INTERVAL_MS,
  briskSeconds: 300,
  quietCheckMinutes: 15,
  callbackTrustMinutes: 30,
};

/**
 * The multiples of `pollIntervalMs` between status queries while callbacks cannot be counted on: the element's own
 * schedule (src/core/schedule.ts), 57 queries in 30 minutes.
 */
export const STREAM_POLL_BACKOFF: readonly number[] = POLL_BACKOFF;

/** Stream options that became limits: said at start, rather than ignored. */
const MOVED: Record<string, string> = { maxPerOrder: 'limits.streamsPerOrder', maxOpen: 'limits.streams' };

/** The streams' pace: the defaults with the shop's changes, each a number above 0; `undefined` when `streams: false`. */
export function resolveStreamOptions(given: StreamOptions | false | undefined, defaults: Readonly<ResolvedStreamOptions> = DEFAULT_STREAM_OPTIONS): ResolvedStreamOptions | undefined {
  if (given === false) return undefined;
  if (given !== undefined && (typeof given !== 'object' || given === null)) throw optionError('streams', 'false or an object of the streams\' pace', given);
  for (const name of Object.keys(given ?? {})) {
    if (MOVED[name]) throw optionError(`streams.${name}`, `given as ${MOVED[name]}: { limit }`, (given as Record<string, unknown>)[name], { why: 'counted across processes that share a throttle store' });
    if (!Object.hasOwn(defaults, name)) throw optionError(`streams.${name}`, `one of ${Object.keys(defaults).join(', ')}`, name);
  }
  const resolved = { ...defaults };
  for (const name of Object.keys(defaults) as (keyof ResolvedStreamOptions)[]) {
    resolved[name] = numberOption(`streams.${name}`, given?.[name], { fallback: defaults[name], min: 0, above: true, unit: UNITS[name] });
  }
  return Object.freeze(resolved);
}
