/** The throttle's store in Redis (`svc-checkout/server/redis`): counts and open places shared across processes. */
import { redisKeys, type RedisKeys } from '../keys.js';
import type { SharedStoreState } from '../shared.js';
import { StoreUnavailableError } from '../shared.js';
import type { RedisConnection } from '../../redis/connection.js';
import { MemoryThrottleStore } from './memory.js';
import type { Holding, Place, ThrottleResult, ThrottleStore } from './port.js';

// Each script runs atomically in Redis: no other process's command comes between its reads and writes. Every
// key of one script shares one hash slot (a cluster runs a script on one node).

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
  readonly #keys: RedisKeys;
  /** Places this process holds in Redis, by key: its lease is renewed while there are any. */
  readonly #held = new Map<string, number>();
  /** Places given back while Redis was away: given back when it answers again. */
  #owed: string[][] = [];
  #renewal: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    readonly merchantId: string | undefined,
    private readonly leaseMs = 30_000,
  ) {
    this.#keys = redisKeys(prefix);
  }

  async hit(key: string, limit: number, windowMs: number, cost = 1): Promise<ThrottleResult> {
    let answer: unknown;
    try {
      answer = await this.connection.script(HIT, [this.#keys.count(key)], [Math.max(1, Math.ceil(windowMs)), Math.trunc(cost)]);
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
    const keys = places.map(({ key }) => this.#keys.place(key));
    let answer: unknown;
    try {
      answer = await this.connection.script(HOLD, [...keys, this.#keys.leases], [
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
          await this.connection.script(RENEW_PLACES, [this.#keys.leases], [this.#process, this.leaseMs]);
          for (const keys of this.#owed.splice(0)) await this.#giveBack(keys);
        } catch {
          // Redis is away: Health has said so; the next renewal tries again.
        }
      })();
    }, Math.max(1, Math.floor(this.leaseMs / 3)));
    (this.#renewal as { unref?: () => void }).unref?.();
  }
}
