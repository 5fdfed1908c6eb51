/**
 * `svc-checkout/server/redis`: the kit's shared state for several processes, in Redis, through the `redis`
 * package (node-redis, an optional peer dependency): callback de-duplication with short leases, throttle counts,
 * the orders to reconcile, and the status bus (pub/sub) that brings a callback one process verified to a payer
 * streaming from another. A plain client, a cluster client and a Sentinel client all fit (redis-link.ts).
 *
 * Redis going away loses nothing: callbacks are answered 503 (the service sends them again, and they are handled
 * once when Redis is back), throttles count in each process, and the status streams query the service instead
 * of waiting for callbacks. A heartbeat notices a Redis that stopped answering within `commandTimeoutMs`, and
 * until it answers again every call fails at once (a circuit breaker) rather than after a timeout each. Before
 * Redis counts as back, each process writes the completions it could not write and takes back the claims it is
 * unsure of. The kit says so in its log once when Redis goes, once when it is back, and when Redis came back
 * without the kit's data. A kit that cannot reach Redis at start, or whose Redis would forget handled callbacks,
 * does not start.
 */
import { StoreUnavailableError, type CallbackClaim, type CallbackStore } from './callback-store.js';
import { CHECKOUT_RECORD_TTL_MS, type CheckoutRecord, type CheckoutStore } from './checkout-store.js';
import { publish, redisChannel, type RedisStateMessage } from './diagnostics.js';
import type { SharedStoreState } from './health.js';
import { errorMessage, type Logger } from './http.js';
import type { ReconciliationStore, TrackedOrder } from './reconciliation.js';
import { checkDurability, type DurabilityRisk } from './redis-durability.js';
import {
  clientLink,
  clusterLink,
  isCluster,
  isSentinel,
  sentinelLink,
  type AnyRedisClient,
  type LinkEvents,
  type RedisClientLike,
  type RedisLink,
} from './redis-link.js';
import { ServiceConfigError } from './service-client.js';
import { statusUpdateOf, type StatusBus, type StatusBusListener, type StatusUpdate } from './status-bus.js';
import { MemoryThrottleStore, type Holding, type Place, type ThrottleResult, type ThrottleStore } from './throttle.js';

export type { RedisClientLike, RedisClusterLike, RedisSentinelLike, AnyRedisClient } from './redis-link.js';
export type { DurabilityRisk } from './redis-durability.js';

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
  /** How long a claimed callback stays claimed when its process dies; renewed while `onCallback` runs. Default 10 s. */
  leaseMs?: number;
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

/** What `createMerchantHandler` takes: `createMerchantHandler({ ...options, ...redis.stores })`. */
export interface RedisKit {
  callbackStore: RedisCallbackStore;
  throttleStore: RedisThrottleStore;
  checkoutStore: RedisCheckoutStore;
  statusBus: RedisStatusBus;
  reconciliationStore: RedisReconciliationStore;
  /** The five, to spread into `createMerchantHandler`'s options. */
  readonly stores: {
    callbackStore: CallbackStore;
    throttleStore: ThrottleStore;
    checkoutStore: CheckoutStore;
    statusBus: StatusBus;
    reconciliationStore: ReconciliationStore;
  };
  /** The merchant the keys are scoped to, when `merchantId` was given. */
  readonly merchantId: string | undefined;
  readonly keyPrefix: string;
  /** Whether Redis answers now. */
  readonly available: boolean;
  /** Unsubscribes and closes the connections the adapter opened (a client you gave stays open). */
  close(): Promise<void>;
}

/** The kit could not reach Redis at start. */
export class RedisConnectError extends Error {
  override readonly name: string = 'RedisConnectError';
}

/** Redis would forget handled callbacks, and `acceptDataLoss` was not given. */
export class RedisDurabilityError extends RedisConnectError {
  override readonly name = 'RedisDurabilityError';
  constructor(
    message: string,
    readonly risks: readonly DurabilityRisk[],
  ) {
    super(message);
  }
}

// Each script runs atomically in Redis: no other process's command comes between its reads and writes. Every
// key of one script shares one hash slot (a cluster runs a script on one node).

/** KEYS[1] the outcome's key; ARGV[1] this claim's owner mark; ARGV[2] the lease in ms. */
const CLAIM = `local state = redis.call('GET', KEYS[1])
if state == 'done' then return 'done' end
if state then return 'busy' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'new'`;

/** Forgets a claim only if it is still this process's (a lease that ran out may have passed it to another). */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Extends a claim's lease while its handling runs, only if it is still this process's. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/**
 * A fixed window: counted, and given its end on the first call. Returns the count and the ms left. ARGV[2] the
 * cost: a negative one gives counts back, and never starts a window.
 */
const HIT = `local cost = tonumber(ARGV[2])
if cost < 1 and redis.call('EXISTS', KEYS[1]) == 0 then return {0, 0} end
local count = redis.call('INCRBY', KEYS[1], cost)
if count < 0 then
  redis.call('SET', KEYS[1], 0, 'KEEPTTL')
  count = 0
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}`;

/**
 * Places held open (status streams), counted per process: each key is a hash of process id -> places it holds,
 * and the last key (KEYS[#KEYS]) the processes' leases (id -> until, ms of Redis's clock). A process that died
 * without giving its places back holds them only until its lease runs out. ARGV[1] this process's id, ARGV[2] its
 * lease in ms, ARGV[3] how long a key is kept after its last place was taken, then each key's limit. Returns 0
 * when every key had a place left (then one is taken under each), else the index of the first that had none.
 */
const HOLD = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local leases = KEYS[#KEYS]
local me = ARGV[1]
redis.call('HSET', leases, me, now + tonumber(ARGV[2]))
for i = 1, #KEYS - 1 do
  local fields = redis.call('HGETALL', KEYS[i])
  local held = 0
  for j = 1, #fields, 2 do
    local owner = fields[j]
    if owner == me or tonumber(redis.call('HGET', leases, owner) or '0') > now then
      held = held + tonumber(fields[j + 1])
    else
      redis.call('HDEL', KEYS[i], owner)
      redis.call('HDEL', leases, owner)
    end
  end
  if held >= tonumber(ARGV[3 + i]) then return i end
end
for i = 1, #KEYS - 1 do
  redis.call('HINCRBY', KEYS[i], me, 1)
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
return 0`;

/** Gives one place back under each key (ARGV[1] the process's id). */
const RELEASE_PLACES = `for i = 1, #KEYS do
  if redis.call('HINCRBY', KEYS[i], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[i], ARGV[1]) end
end
return 0`;

/** Renews a process's lease on its places (KEYS[1] the leases, ARGV[1] its id, ARGV[2] the lease in ms). */
const RENEW_PLACES = `local time = redis.call('TIME')
redis.call('HSET', KEYS[1], ARGV[1], tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[2]))
return 0`;

/** A key of places is dropped this long after its last place was taken (a process that died left it behind). */
const PLACES_KEPT_MS = 7 * 86_400_000;

/** KEYS[1] due times (sorted set), KEYS[2] orders (hash); ARGV orderNo, order JSON, due time, bound. 0 when full. */
const TRACK = `if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1`;

/** The orders due by ARGV[1], at most ARGV[2], each moved to ARGV[3] (taken until then). */
const TAKE = `local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local taken = {}
for _, id in ipairs(ids) do
  local order = redis.call('HGET', KEYS[2], id)
  if order then
    redis.call('ZADD', KEYS[1], ARGV[3], id)
    taken[#taken + 1] = order
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return taken`;

/** Due sooner, never later (a sweep's lease only ends early; a sooner due time set meanwhile stands). */
const RESCHEDULE = `local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if due and tonumber(ARGV[2]) < tonumber(due) then redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1]) end
return 0`;

const FORGET = `redis.call('ZREM', KEYS[1], ARGV[1])
return redis.call('HDEL', KEYS[2], ARGV[1])`;

/** The address without its credentials, for messages. */
/**
 * A checkout's record (checkout-store.ts) is a hash: `f` the last attempt forwarded, `l` the earlier scheme's orders,
 * `a:<n>` what attempt n was made for. KEYS[1] the record; ARGV[1] the attempts seen (never lowers `f`); ARGV[2] the
 * earlier scheme's count; ARGV[3] the record's life in ms.
 */
const CHECKOUT_SEEN = `local f = tonumber(redis.call('HGET', KEYS[1], 'f'))
if not f or tonumber(ARGV[1]) > f then redis.call('HSET', KEYS[1], 'f', ARGV[1]) end
redis.call('HSET', KEYS[1], 'l', ARGV[2])
return redis.call('PEXPIRE', KEYS[1], ARGV[3])`;

/** KEYS[1] the record; ARGV[1] the attempt about to be forwarded; ARGV[2] its amount (`total currency`); ARGV[3] the life in ms. */
const CHECKOUT_FORWARDING = `local f = tonumber(redis.call('HGET', KEYS[1], 'f'))
if not f or tonumber(ARGV[1]) > f then redis.call('HSET', KEYS[1], 'f', ARGV[1]) end
if ARGV[1] == '1' then redis.call('HSETNX', KEYS[1], 'l', '0') end
redis.call('HSET', KEYS[1], 'a:' .. ARGV[1], ARGV[2])
return redis.call('PEXPIRE', KEYS[1], ARGV[3])`;

function shown(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return 'the configured address';
  }
}

/** Redis is known to be away: nothing was sent (the circuit breaker is open). */
class CircuitOpenError extends StoreUnavailableError {}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Says once that Redis went away, and once that it came back: in the log, and on svc-checkout:redis. */
class Health {
  #up = true;
  readonly #listeners = new Set<(up: boolean) => void>();
  constructor(
    private readonly logger: Logger,
    private readonly where: string,
    private readonly merchantId: string | undefined,
  ) {}

  get up(): boolean {
    return this.#up;
  }

  /** Tells svc-checkout:redis the state now (at the start, then at each change). */
  publish(): void {
    publish(redisChannel, (): RedisStateMessage => ({ state: this.#up ? 'up' : 'down', ...(this.merchantId ? { merchantId: this.merchantId } : {}) }));
  }

  onChange(listener: (up: boolean) => void): void {
    this.#listeners.add(listener);
  }

  down(cause: string): void {
    if (!this.#up) return;
    this.#up = false;
    this.logger.error(
      `svc-checkout: Redis at ${this.where} is unreachable (${cause}). Until it returns: status streams query the service ` +
        'instead of waiting for callbacks, callbacks are answered 503 (the service sends them again), throttles count in each process.',
    );
    this.publish();
    for (const listener of [...this.#listeners]) listener(false);
  }

  back(): void {
    if (this.#up) return;
    this.#up = true;
    this.logger.warn(`svc-checkout: Redis at ${this.where} is back: callbacks, throttles and status updates are shared again.`);
    this.publish();
    for (const listener of [...this.#listeners]) listener(true);
  }
}

/** Errors of a connection rather than of a command: Redis (or the node holding the key) is away or changing. */
const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|socket|closed|offline|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|READONLY|No such|not connected|reconnect/i;

/**
 * Runs commands through a circuit breaker. A command later than the timeout alone does not make Redis away (a
 * swamped process reads its answers late too): the probe decides, on a connection of its own. While Redis is
 * away every command fails at once; the heartbeat, once a second (four times while away), finds it back, and
 * the recovery tasks run before it counts as back.
 */
class Connection {
  #probing: Promise<boolean> | undefined;
  #beat: ReturnType<typeof setTimeout> | undefined;
  #recovering: Promise<void> | undefined;
  #running = false;
  #closed = false;
  readonly #tasks: (() => Promise<void>)[] = [];

  constructor(
    readonly link: RedisLink,
    readonly health: Health,
    private readonly timeoutMs: number,
    private readonly holdMs: number,
    /** The heartbeat's command, on the probe; it checks what it answers (the epoch) itself. */
    private readonly heartbeat: () => Promise<void>,
  ) {}

  /** Redis answers: the heartbeat finds it, and the client's connection is up. */
  get available(): boolean {
    return this.health.up && this.link.ready;
  }

  /** A task that must run before Redis counts as back (write what could not be written). */
  onRecovery(task: () => Promise<void>): void {
    this.#tasks.push(task);
  }

  start(): void {
    this.#running = true;
    this.#schedule();
  }

  stop(): void {
    this.#running = false;
    this.#closed = true;
    clearTimeout(this.#beat);
  }

  /** The client said a connection is ready again: check at once rather than at the next beat. */
  nudge(): void {
    if (!this.#running || this.health.up) return;
    clearTimeout(this.#beat);
    void this.#heartbeat().finally(() => this.#schedule());
  }

  #schedule(): void {
    if (!this.#running) return;
    clearTimeout(this.#beat);
    this.#beat = setTimeout(() => void this.#heartbeat().finally(() => this.#schedule()), this.health.up ? 1_000 : 250);
    this.#beat.unref?.();
  }

  async #heartbeat(): Promise<void> {
    try {
      await this.#timed(this.heartbeat(), 'the heartbeat');
    } catch (error) {
      this.health.down(error instanceof StoreUnavailableError ? error.message : errorMessage(error));
      return;
    }
    if (!this.health.up) await this.#recover();
  }

  #recover(): Promise<void> {
    this.#recovering ??= (async () => {
      for (const task of this.#tasks) await task();
      // Every other process writes what it could not meanwhile, before any of them takes a claim again.
      await pause(this.holdMs);
      if (this.#running) this.health.back();
    })()
      .catch(() => undefined) // away again: the next beat tries again
      .finally(() => {
        this.#recovering = undefined;
      });
    return this.#recovering;
  }

  /** Whether Redis answers a PING on the probe in time; one probe at a time. */
  reachable(): Promise<boolean> {
    this.#probing ??= this.#timed(this.link.probe(undefined, ['PING']), 'PING')
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        this.#probing = undefined;
      });
    return this.#probing;
  }

  /** The answer, or `StoreUnavailableError` after the timeout. */
  async #timed<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      // Timers run before the socket is read in each turn of the event loop: on a busy process, an answer that
      // came in time may still be unread when the timer fires. One turn more lets it be read first.
      timer = setTimeout(
        () => setImmediate(() => reject(new StoreUnavailableError(`Redis did not answer ${what} within ${this.timeoutMs} ms`))),
        this.timeoutMs,
      );
    });
    promise.catch(() => undefined); // a late failure after the timeout is nobody's to see
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One command through the breaker; `recovering` lets the recovery tasks through while it is open. */
  run(key: string | undefined, args: string[], recovering = false): Promise<unknown> {
    return this.call(() => this.link.send(key, args), recovering);
  }

  script(source: string, keys: string[], args: (string | number)[], recovering = false): Promise<unknown> {
    return this.run(keys[0], ['EVAL', source, String(keys.length), ...keys, ...args.map(String)], recovering);
  }

  async call(send: () => Promise<unknown>, recovering = false): Promise<unknown> {
    if (this.#closed) throw new CircuitOpenError('the Redis adapter is closed');
    if (!this.health.up && !recovering) throw new CircuitOpenError('Redis is unreachable');
    if (!this.link.ready) {
      this.health.down('not connected');
      throw new CircuitOpenError('Redis is unreachable');
    }
    try {
      return await this.#timed(send(), 'a command');
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        if (!this.link.ready || !(await this.reachable())) this.health.down(error.message);
        throw error;
      }
      // A script or type error is a bug to see; a connection that failed under the command is Redis going away.
      if (!this.link.ready || CONNECTION_ERROR.test(errorMessage(error))) {
        if (!this.link.ready || !(await this.reachable())) this.health.down(errorMessage(error));
        throw new StoreUnavailableError('Redis is unreachable', { cause: error });
      }
      throw error;
    }
  }
}

/**
 * De-duplicates outcomes across processes, with a short lease on each claim, renewed while its handling runs: a
 * process that dies holds an outcome for one lease at most.
 */
export class RedisCallbackStore implements CallbackStore, SharedStoreState {
  readonly backend = 'redis';
  /** Whether Redis answers now (the readiness answer says so). */
  get available(): boolean {
    return this.connection.available;
  }
  /** This process's claims: only the claimant releases (a lease that ran out may have passed it on). */
  readonly #marks = new Map<string, { mark: string; renewal: ReturnType<typeof setInterval> }>();
  /** Handled here, not yet written (Redis was away): written before Redis counts as back. */
  readonly #unwritten = new Set<string>();
  /** Claims whose answer never came: the claim may have been made, so it is taken back when Redis returns. */
  readonly #unsure = new Map<string, string>();

  constructor(
    private readonly connection: Connection,
    private readonly prefix: string,
    private readonly leaseMs: number,
    private readonly ttlMs: number,
    readonly merchantId: string | undefined,
  ) {
    connection.onRecovery(() => this.#recover());
  }

  #key(id: string): string {
    return `${this.prefix}callback:${id}`;
  }

  async claim(id: string): Promise<CallbackClaim> {
    if (this.#unwritten.has(id)) return 'done';
    const key = this.#key(id);
    const mark = `busy:${crypto.randomUUID()}`;
    let claim: string;
    try {
      claim = String(await this.connection.script(CLAIM, [key], [mark, this.leaseMs]));
    } catch (error) {
      if (error instanceof StoreUnavailableError && !(error instanceof CircuitOpenError)) this.#unsure.set(key, mark);
      throw error;
    }
    if (claim !== 'new' && claim !== 'busy' && claim !== 'done') throw new TypeError(`unexpected claim from Redis: ${claim}`);
    if (claim === 'new') {
      const renewal = setInterval(() => {
        this.connection.script(RENEW, [key], [mark, this.leaseMs]).catch(() => undefined);
      }, Math.max(100, Math.floor(this.leaseMs / 3)));
      renewal.unref?.();
      this.#marks.set(id, { mark, renewal });
    }
    return claim;
  }

  async complete(id: string): Promise<void> {
    this.#stopRenewal(id);
    try {
      await this.connection.run(this.#key(id), ['SET', this.#key(id), 'done', 'PX', String(this.ttlMs)]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) this.#unwritten.add(id);
      throw error;
    }
  }

  async release(id: string): Promise<void> {
    const mark = this.#stopRenewal(id);
    if (!mark) return;
    try {
      await this.connection.script(RELEASE, [this.#key(id)], [mark]);
    } catch (error) {
      if (error instanceof StoreUnavailableError && !(error instanceof CircuitOpenError)) this.#unsure.set(this.#key(id), mark);
      throw error;
    }
  }

  /** Stops every renewal (the adapter closes). */
  stop(): void {
    for (const id of [...this.#marks.keys()]) this.#stopRenewal(id);
  }

  #stopRenewal(id: string): string | undefined {
    const held = this.#marks.get(id);
    this.#marks.delete(id);
    if (held) clearInterval(held.renewal);
    return held?.mark;
  }

  async #recover(): Promise<void> {
    for (const id of [...this.#unwritten]) {
      await this.connection.run(this.#key(id), ['SET', this.#key(id), 'done', 'PX', String(this.ttlMs)], true);
      this.#unwritten.delete(id);
    }
    for (const [key, mark] of [...this.#unsure]) {
      await this.connection.script(RELEASE, [key], [mark], true);
      this.#unsure.delete(key);
    }
  }
}

/**
 * Counts throttled calls across processes in fixed windows, and the places open streams hold; while Redis is
 * away, in this process. The places' keys share one hash slot (`{<prefix>open}`), as one script reads them all.
 */
export class RedisThrottleStore implements ThrottleStore, SharedStoreState {
  readonly backend = 'redis';
  /** Whether Redis answers now (the readiness answer says so). */
  get available(): boolean {
    return this.connection.available;
  }
  readonly #local = new MemoryThrottleStore();
  readonly #process = crypto.randomUUID();
  readonly #slot: string;
  /** Places this process holds in Redis, by key: its lease is renewed while there are any. */
  readonly #held = new Map<string, number>();
  /** Places given back while Redis was away: given back when it answers again. */
  #owed: string[][] = [];
  #renewal: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly prefix: string,
    readonly merchantId: string | undefined,
    private readonly leaseMs = 30_000,
  ) {
    this.#slot = `{${prefix}open}`;
  }

  async hit(key: string, limit: number, windowMs: number, cost = 1): Promise<ThrottleResult> {
    let answer: unknown;
    try {
      answer = await this.connection.script(HIT, [`${this.prefix}throttle:${key}`], [Math.max(1, Math.ceil(windowMs)), Math.trunc(cost)]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return this.#local.hit(key, limit, windowMs, cost);
      throw error;
    }
    const [count, left] = Array.isArray(answer) ? answer.map(Number) : [Number.NaN, Number.NaN];
    if (!Number.isFinite(count) || !Number.isFinite(left)) throw new TypeError('unexpected throttle count from Redis');
    return count! <= limit ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs: Math.max(0, left!) };
  }

  async hold(places: readonly Place[]): Promise<Holding> {
    if (places.length === 0) return { held: true, release: () => undefined };
    const keys = places.map(({ key }) => `${this.#slot}:${key}`);
    let answer: unknown;
    try {
      answer = await this.connection.script(HOLD, [...keys, `${this.#slot}:leases`], [
        this.#process,
        this.leaseMs,
        PLACES_KEPT_MS,
        ...places.map(({ limit }) => limit),
      ]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return this.#local.hold(places);
      throw error;
    }
    const full = Number(answer) - 1;
    if (!Number.isInteger(full) || full < -1 || full >= places.length) throw new TypeError('unexpected answer from Redis to a hold');
    if (full >= 0) return { held: false, full };
    for (const key of keys) this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
    this.#renewLease();
    let released = false;
    return {
      held: true,
      release: () => {
        if (released) return;
        released = true;
        for (const key of keys) {
          const left = (this.#held.get(key) ?? 1) - 1;
          if (left > 0) this.#held.set(key, left);
          else this.#held.delete(key);
        }
        void this.#giveBack(keys);
      },
    };
  }

  /** Stops renewing the lease (the adapter closes). */
  close(): void {
    clearInterval(this.#renewal);
    this.#renewal = undefined;
  }

  async #giveBack(keys: string[]): Promise<void> {
    try {
      await this.connection.script(RELEASE_PLACES, keys, [this.#process]);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      this.#owed.push(keys);
    }
  }

  /** While this process holds places, its lease is renewed (and what it owes given back once Redis answers). */
  #renewLease(): void {
    if (this.#renewal !== undefined) return;
    this.#renewal = setInterval(() => {
      if (this.#held.size === 0 && this.#owed.length === 0) {
        this.close();
        return;
      }
      void (async () => {
        try {
          await this.connection.script(RENEW_PLACES, [`${this.#slot}:leases`], [this.#process, this.leaseMs]);
          for (const keys of this.#owed.splice(0)) await this.#giveBack(keys);
        } catch {
          // Redis is away: Health has said so; the next renewal tries again.
        }
      })();
    }, Math.max(1, Math.floor(this.leaseMs / 3)));
    (this.#renewal as { unref?: () => void }).unref?.();
  }
}

/** The orders to reconcile, shared: a sorted set of due times and a hash of the orders, in one hash slot. */
export class RedisReconciliationStore implements ReconciliationStore, SharedStoreState {
  readonly backend = 'redis';
  /** Whether Redis answers now (the readiness answer says so). */
  get available(): boolean {
    return this.connection.available;
  }
  readonly #keys: [due: string, orders: string];
  constructor(
    private readonly connection: Connection,
    prefix: string,
    private readonly maxOrders: number,
    readonly merchantId: string | undefined,
  ) {
    const slot = `{${prefix}reconcile}`;
    this.#keys = [`${slot}:due`, `${slot}:orders`];
  }

  async track(order: TrackedOrder, dueAt: number): Promise<boolean> {
    return Number(await this.connection.script(TRACK, this.#keys, [order.orderNo, JSON.stringify(order), dueAt, this.maxOrders])) === 1;
  }

  async take(now: number, limit: number, until: number): Promise<TrackedOrder[]> {
    const answer = await this.connection.script(TAKE, this.#keys, [now, limit, until]);
    const orders: TrackedOrder[] = [];
    for (const text of Array.isArray(answer) ? answer : []) {
      try {
        orders.push(JSON.parse(String(text)) as TrackedOrder);
      } catch {
        // not written by the kit: left alone
      }
    }
    return orders;
  }

  async reschedule(orderNo: string, dueAt: number): Promise<void> {
    await this.connection.script(RESCHEDULE, [this.#keys[0]], [orderNo, dueAt]);
  }

  async forget(orderNo: string): Promise<void> {
    await this.connection.script(FORGET, this.#keys, [orderNo]);
  }
}

/** What the kit knows of each checkout, shared: one hash per checkout (its own hash slot in a cluster). */
export class RedisCheckoutStore implements CheckoutStore, SharedStoreState {
  readonly backend = 'redis';
  /** Whether Redis answers now (the readiness answer says so). */
  get available(): boolean {
    return this.connection.available;
  }
  constructor(
    private readonly connection: Connection,
    private readonly prefix: string,
    readonly merchantId: string | undefined,
    private readonly ttlMs = CHECKOUT_RECORD_TTL_MS,
  ) {}

  #key(checkout: string): string {
    return `${this.prefix}checkout:${checkout}`;
  }

  async read(checkout: string): Promise<CheckoutRecord | undefined> {
    const answer = await this.connection.run(this.#key(checkout), ['HGETALL', this.#key(checkout)]);
    const fields = fieldsOf(answer);
    const forwarded = Number(fields['f']);
    if (!Number.isSafeInteger(forwarded) || forwarded < 0) return undefined;
    const amounts: Record<number, { total: number; currency: string }> = {};
    for (const [name, value] of Object.entries(fields)) {
      const attempt = /^a:(\d+)$/.exec(name)?.[1];
      const [total, currency] = value.split(' ');
      if (attempt && Number.isSafeInteger(Number(total)) && currency) amounts[Number(attempt)] = { total: Number(total), currency };
    }
    const legacy = fields['l'] === undefined ? undefined : Number(fields['l']);
    return { forwarded, amounts, ...(legacy !== undefined && Number.isSafeInteger(legacy) ? { legacy } : {}) };
  }

  async seen(checkout: string, attempts: number, legacy: number): Promise<void> {
    await this.connection.script(CHECKOUT_SEEN, [this.#key(checkout)], [attempts, legacy, this.ttlMs]);
  }

  async forwarding(checkout: string, attempt: number, amount: { total: number; currency: string }): Promise<void> {
    await this.connection.script(CHECKOUT_FORWARDING, [this.#key(checkout)], [attempt, `${amount.total} ${amount.currency}`, this.ttlMs]);
  }
}

/** HGETALL's answer as an object, whichever shape the client gave it (node-redis 4 to 6: an object or a flat list). */
function fieldsOf(answer: unknown): Record<string, string> {
  if (Array.isArray(answer)) {
    const fields: Record<string, string> = {};
    for (let index = 0; index + 1 < answer.length; index += 2) fields[String(answer[index])] = String(answer[index + 1]);
    return fields;
  }
  if (answer instanceof Map) return Object.fromEntries([...answer].map(([name, value]) => [String(name), String(value)]));
  return answer && typeof answer === 'object' ? Object.fromEntries(Object.entries(answer).map(([name, value]) => [name, String(value)])) : {};
}

/** Status updates through Redis pub/sub: to this process's listeners at once, to the other processes through Redis. */
export class RedisStatusBus implements StatusBus, SharedStoreState {
  readonly backend = 'redis';
  /** Whether Redis answers now (the readiness answer says so). */
  get available(): boolean {
    return this.connection.available;
  }
  readonly #listeners = new Set<StatusBusListener>();
  readonly #origin = crypto.randomUUID();
  #live = false;

  constructor(
    private readonly connection: Connection,
    readonly channel: string,
    readonly merchantId: string | undefined,
  ) {}

  get live(): boolean {
    return this.#live;
  }

  /** Whether updates published anywhere reach this process now (Redis up and the subscription live). */
  setLive(live: boolean): void {
    if (live === this.#live) return;
    this.#live = live;
    for (const listener of [...this.#listeners]) listener.connection?.(live ? 'up' : 'down');
  }

  /** A message from the channel: another process's update. */
  receive(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const { origin, update } = parsed as { origin?: unknown; update?: unknown };
    if (origin === this.#origin) return; // told here already
    const checked = statusUpdateOf(update);
    if (checked) this.#tell(checked);
  }

  async publish(update: StatusUpdate): Promise<void> {
    this.#tell(update);
    try {
      const message = JSON.stringify({ origin: this.#origin, update });
      await this.connection.call(() => this.connection.link.publish(this.channel, message));
    } catch (error) {
      // The other processes' streams query the service while Redis is away; Health has said so once.
      if (!(error instanceof StoreUnavailableError)) throw error;
    }
  }

  subscribe(listener: StatusBusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(update: StatusUpdate): void {
    for (const listener of [...this.#listeners]) listener.update(update);
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function positive(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) throw new ServiceConfigError(`${name} must be a number of at least ${min}`);
  return value;
}

function prefixOf(options: RedisKitOptions): string {
  if (options.keyPrefix !== undefined) {
    if (typeof options.keyPrefix !== 'string' || options.keyPrefix === '' || /[{}]/.test(options.keyPrefix)) {
      throw new ServiceConfigError('keyPrefix must be text without { or } (the adapter puts the hash tags in)');
    }
    return options.keyPrefix;
  }
  if (typeof options.merchantId !== 'string' || !/^[\w.-]+$/.test(options.merchantId)) {
    throw new ServiceConfigError("connectRedis needs merchantId (its keys and channel carry it, so two merchant accounts never share them), or a keyPrefix");
  }
  return `svc-checkout:${options.merchantId}:`;
}

/** Says when Redis came back without the kit's data: its epoch key, written once, gone or replaced. */
class Epoch {
  #value: string | undefined;
  constructor(
    private readonly connection: Connection,
    private readonly key: string,
    private readonly logger: Logger,
    private readonly where: string,
  ) {}

  /** Writes the epoch if there is none, and remembers the one Redis holds. */
  async establish(recovering = false): Promise<string> {
    await this.connection.run(this.key, ['SET', this.key, crypto.randomUUID(), 'NX'], recovering);
    const value = String(await this.connection.run(this.key, ['GET', this.key], recovering));
    this.#value = value;
    return value;
  }

  /** The heartbeat: GET on the probe; a missing or other epoch means Redis lost what the kit wrote. */
  async beat(): Promise<void> {
    const answer = await this.connection.link.probe(this.key, ['GET', this.key]);
    if (this.#value === undefined || answer === this.#value) return;
    const before = this.#value;
    const now = answer === null ? await this.establish(true) : String(answer);
    if (now === before) return;
    this.#value = now;
    this.logger.error(
      `svc-checkout: Redis at ${this.where} came back without the kit's data (its epoch key ${this.key} is ${answer === null ? 'gone' : 'another'}): ` +
        'outcomes handled before may reach onCallback again (keep onCallback idempotent) and throttle counts start afresh. ' +
        'Redis must keep its data: appendonly yes, maxmemory-policy noeviction, replicas that keep up (docs/reliability.md).',
    );
  }
}

/**
 * Connects to Redis and returns the kit's four shared stores. Rejects with `RedisConnectError` when Redis cannot
 * be reached within `connectTimeoutMs` (a kit that would silently keep state per process must not start), and
 * with `RedisDurabilityError` when its settings would let it forget handled callbacks.
 */
export async function connectRedis(options: RedisKitOptions = {}): Promise<RedisKit> {
  const prefix = prefixOf(options);
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const given = options.client;
  const where = given ? (isCluster(given) ? 'the given cluster' : isSentinel(given) ? 'the given Sentinel primary' : 'the given client') : shown(url);
  const logger = options.logger ?? console;
  const connectTimeoutMs = positive('connectTimeoutMs', options.connectTimeoutMs, 5_000);
  const commandTimeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs, 5_000);
  const leaseMs = positive('leaseMs', options.leaseMs, 10_000, 300);
  const holdMs = positive('recoveryHoldMs', options.recoveryHoldMs, 2_000, 0);
  const health = new Health(logger, where, options.merchantId);
  let started = false;
  let subscribed = false;

  let client: AnyRedisClient;
  if (given) {
    client = given;
  } else {
    let redis: { createClient(options: unknown): unknown };
    try {
      redis = (await import('redis')) as unknown as typeof redis;
    } catch {
      throw new RedisConnectError('svc-checkout/server/redis needs the redis package: npm install redis');
    }
    client = redis.createClient({
      url,
      // Commands fail at once while Redis is away, rather than waiting in memory: the kit has a fallback for each.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: connectTimeoutMs,
        // At start, one failure is enough to refuse; later, reconnect for ever, at most a second apart.
        reconnectStrategy: (retries: number, cause: Error) => (started ? Math.min(100 * (retries + 1), 1_000) : cause),
      },
    }) as RedisClientLike;
  }

  // Set below: the link reports to the connection and the bus, which need the link.
  let connection: Connection | undefined;
  let statusBus: RedisStatusBus | undefined;
  const events: LinkEvents = {
    lost: (cause) => {
      if (started) health.down(cause);
    },
    ready: () => connection?.nudge(),
    subscription: (live) => {
      subscribed = live;
      statusBus?.setLive(live && health.up);
    },
  };
  const link = isCluster(client) ? clusterLink(client, events) : isSentinel(client) ? sentinelLink(client, events) : clientLink(client, events, !given);
  const epochKey = `${prefix}epoch`;
  let epoch: Epoch | undefined;
  connection = new Connection(link, health, commandTimeoutMs, holdMs, () => epoch!.beat());
  statusBus = new RedisStatusBus(connection, `${prefix}status`, options.merchantId);
  const bus = statusBus;
  // Redis going away reaches the streams: they query the service until it is back.
  health.onChange((up) => bus.setLive(up && subscribed));
  epoch = new Epoch(connection, epochKey, logger, where);

  let risks: DurabilityRisk[] = [];
  try {
    await withTimeout(
      (async () => {
        await link.start(bus.channel, (message) => bus.receive(message));
        await link.send(undefined, ['PING']);
        if (link.kind === 'client') {
          const info = String(await link.send(undefined, ['INFO', 'cluster']).catch(() => ''));
          if (/cluster_enabled:1/.test(info)) {
            throw new RedisConnectError(
              `svc-checkout: Redis at ${where} is a node of a cluster: most keys live on other nodes (MOVED). ` +
                "Give connectRedis a cluster client: connectRedis({ client: createCluster({ rootNodes: [{ url }] }), merchantId })",
            );
          }
        }
        risks = (await checkDurability((args) => link.primaries(args))).risks;
        if (risks.length === 0 || options.acceptDataLoss) await epoch!.establish(true);
      })(),
      connectTimeoutMs,
      'connecting',
    );
  } catch (error) {
    await link.close();
    if (error instanceof RedisConnectError) throw error;
    throw new RedisConnectError(
      `svc-checkout: cannot reach Redis at ${where} (${errorMessage(error)}). The kit shares callbacks, throttles and ` +
        'status updates between its processes through it, and does not start without it.',
      { cause: error },
    );
  }
  const unsafe = risks.map((risk) => `${risk.setting} is ${risk.value}: ${risk.why}`).join('; ');
  if (risks.length > 0 && !options.acceptDataLoss) {
    await link.close();
    throw new RedisDurabilityError(
      `svc-checkout: Redis at ${where} may forget the callbacks the kit handled, and then hand a payment to onCallback twice: ${unsafe}. ` +
        'Change the setting, or pass acceptDataLoss: true to start anyway (docs/reliability.md).',
      risks,
    );
  }
  if (risks.length > 0) logger.warn(`svc-checkout: Redis at ${where} may forget handled callbacks (accepted with acceptDataLoss): ${unsafe}.`);
  started = true;
  bus.setLive(subscribed);
  connection.start();
  health.publish();

  const callbackStore = new RedisCallbackStore(connection, prefix, leaseMs, positive('ttlMs', options.ttlMs, 73 * 3_600_000), options.merchantId);
  const throttleStore = new RedisThrottleStore(connection, prefix, options.merchantId, positive('openLeaseMs', options.openLeaseMs, 30_000, 3));
  const reconciliationStore = new RedisReconciliationStore(connection, prefix, positive('maxOrders', options.maxOrders, 100_000), options.merchantId);
  const checkoutStore = new RedisCheckoutStore(connection, prefix, options.merchantId);
  return {
    callbackStore,
    throttleStore,
    checkoutStore,
    statusBus: bus,
    reconciliationStore,
    stores: { callbackStore, throttleStore, checkoutStore, statusBus: bus, reconciliationStore },
    merchantId: options.merchantId,
    keyPrefix: prefix,
    get available() {
      return connection!.available;
    },
    async close() {
      started = false;
      connection!.stop();
      callbackStore.stop();
      throttleStore.close();
      await link.close();
    },
  };
}
