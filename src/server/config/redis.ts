/** `connectRedis`'s options, resolved once into what the Redis adapter reads. */
import type { AnyRedisClient } from '../redis/link.js';
import type { Logger } from '../http/http.js';
import { numberOption } from './checks.js';
import { optionError } from './errors.js';

export interface RedisKitOptions {
  /** `redis://[[user]:password@]host[:port][/db]` (or `rediss://`). Default `redis://127.0.0.1:6379`. */
  url?: string;
  /**
   * A node-redis client you made: `createClient` (TLS, ACLs), `createCluster` (Redis Cluster) or `createSentinel`
   * (a primary and its replicas). Connected here when it is not yet. Without it, the adapter makes a plain client
   * from `url`.
   */
  client?: AnyRedisClient;
  /** The merchant account: the default key prefix and channel carry it, so two accounts never share state. */
  merchantId?: string;
  /** Prefix of every key and of the channel, in place of `svc-checkout:<merchantId>:`. No `{` or `}`. */
  keyPrefix?: string;
  /**
   * The process lease: each process renews a key of its own (every third of this, at most every second), and a claim
   * it holds is taken over only once that key lapsed: when the process is gone, or cut off from Redis longer than
   * this. A process that could not renew for half of it answers callbacks 503. Default 30 s.
   */
  leaseMs?: number;
  /**
   * Whether a claim and a completion count as written only once a replica acknowledged them (`WAIT 1`): `'auto'`
   * (the default) waits as soon as a primary has a replica connected (read from `INFO replication` at start and every
   * second), `true` always, `false` never.
   */
  replicas?: 'auto' | boolean;
  /** How long a write waits for a replica's acknowledgement (capped at half of `commandTimeoutMs`). Default 1 000 ms. */
  replicaTimeoutMs?: number;
  /** How long a handled outcome is remembered. Default 73 hours: the service retries for 72. */
  ttlMs?: number;
  /**
   * How long the places a process holds (its open status streams, for the stream limits) outlive it, should it
   * stop without giving them back. Default 30 s; a process renews it every third of that while it holds any.
   */
  openLeaseMs?: number;
  /** A command that takes longer counts as Redis being unreachable (until it answers in time). Default 5 000 ms. */
  commandTimeoutMs?: number;
  /** How long the start may take before it fails. Default 5 000 ms. */
  connectTimeoutMs?: number;
  /**
   * How long after Redis answers again every process waits before it counts Redis as back: the time for each to
   * write what it could not. Default 2 000 ms.
   */
  recoveryHoldMs?: number;
  /** Orders kept for reconciliation at most. Default 100 000. */
  maxOrders?: number;
  /**
   * Start even when Redis may forget handled callbacks (no append-only file, an evicting `maxmemory-policy`,
   * settings that cannot be read): the kit then says which, once, in its log. Default false: it refuses to start.
   */
  acceptDataLoss?: boolean;
  /** Where the adapter says that Redis went away and came back. Default `console`. */
  logger?: Logger;
}

export interface RedisConfig {
  readonly keyPrefix: string;
  readonly url: string;
  readonly client: AnyRedisClient | undefined;
  readonly merchantId: string | undefined;
  readonly logger: Logger;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly leaseMs: number;
  readonly replicas: 'auto' | boolean;
  readonly replicaTimeoutMs: number;
  readonly ttlMs: number;
  readonly openLeaseMs: number;
  readonly recoveryHoldMs: number;
  readonly maxOrders: number;
  readonly acceptDataLoss: boolean;
}

const ms = (option: keyof RedisKitOptions, value: unknown, fallback: number, min: number) =>
  numberOption(option, value, { fallback, min, unit: 'milliseconds' });

/** The prefix of every key and of the channel: the shop's own, else one that carries the merchant. */
function keyPrefixOf(options: RedisKitOptions): string {
  if (options.keyPrefix !== undefined) {
    if (typeof options.keyPrefix !== 'string' || options.keyPrefix === '' || /[{}]/.test(options.keyPrefix)) {
      throw optionError('keyPrefix', 'text without { or } (the adapter puts the hash tags in)', options.keyPrefix);
    }
    return options.keyPrefix;
  }
  if (typeof options.merchantId !== 'string' || !/^[\w.-]+$/.test(options.merchantId)) {
    throw optionError('merchantId', 'the merchant id (its keys and channel carry it, so two merchant accounts never share them), or give a keyPrefix', options.merchantId);
  }
  return `svc-checkout:${options.merchantId}:`;
}

function replicasOf(value: unknown): 'auto' | boolean {
  if (value === undefined) return 'auto';
  if (value === 'auto' || value === true || value === false) return value;
  throw optionError('replicas', "'auto', true or false (whether a write counts once a replica acknowledged it)", value);
}

export function resolveRedisConfig(options: RedisKitOptions = {}): RedisConfig {
  if (typeof options !== 'object' || options === null) throw optionError('connectRedis options', 'an object', options);
  if (options.url !== undefined && typeof options.url !== 'string') throw optionError('url', 'a redis:// or rediss:// address', options.url);
  if (options.logger !== undefined && (typeof options.logger?.warn !== 'function' || typeof options.logger?.error !== 'function')) {
    throw optionError('logger', 'an object with warn and error (console will do)', options.logger);
  }
  return Object.freeze({
    keyPrefix: keyPrefixOf(options),
    url: options.url ?? 'redis://127.0.0.1:6379',
    client: options.client,
    merchantId: options.merchantId,
    logger: options.logger ?? console,
    connectTimeoutMs: ms('connectTimeoutMs', options.connectTimeoutMs, 5_000, 1),
    commandTimeoutMs: ms('commandTimeoutMs', options.commandTimeoutMs, 5_000, 1),
    leaseMs: ms('leaseMs', options.leaseMs, 30_000, 300),
    replicas: replicasOf(options.replicas),
    replicaTimeoutMs: ms('replicaTimeoutMs', options.replicaTimeoutMs, 1_000, 1),
    ttlMs: ms('ttlMs', options.ttlMs, 73 * 3_600_000, 1),
    openLeaseMs: ms('openLeaseMs', options.openLeaseMs, 30_000, 3),
    recoveryHoldMs: ms('recoveryHoldMs', options.recoveryHoldMs, 2_000, 0),
    maxOrders: numberOption('maxOrders', options.maxOrders, { fallback: 100_000, min: 1, integer: true, unit: 'orders' }),
    acceptDataLoss: options.acceptDataLoss === true,
  });
}
