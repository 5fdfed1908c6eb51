/** The orders to reconcile, in Redis (`svc-checkout/server/redis`): shared by the processes' sweeps. */
import { redisKeys } from '../keys.js';
import type { SharedStoreState } from '../shared.js';
import type { RedisConnection } from '../../redis/connection.js';
import type { ReconciliationStore, TrackedOrder } from './port.js';

// Each script runs atomically in Redis: no other process's command comes between its reads and writes. Every
// key of one script shares one hash slot (a cluster runs a script on one node).

/**
 * KEYS[1] due times (sorted set), KEYS[2] orders (hash); ARGV orderNo, order JSON, due time, bound, '1' to leave an
 * order kept already as it is. 0 when full.
 */
const TRACK = `local kept = redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1
if kept and ARGV[5] == '1' then return 1 end
if not kept and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
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

/** The orders to reconcile, shared: a sorted set of due times and a hash of the orders, in one hash slot. */
export class RedisReconciliationStore implements ReconciliationStore, SharedStoreState {
  readonly backend = 'redis';
  /** Whether Redis answers now (the readiness answer says so). */
  get available(): boolean {
    return this.connection.available;
  }
  readonly #keys: [due: string, orders: string];
  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    private readonly maxOrders: number,
    readonly merchantId: string | undefined,
  ) {
    const keys = redisKeys(prefix);
    this.#keys = [keys.reconcileDue, keys.reconcileOrders];
  }

  async track(order: TrackedOrder, dueAt: number, keep = false): Promise<boolean> {
    return Number(await this.connection.script(TRACK, this.#keys, [order.orderNo, JSON.stringify(order), dueAt, this.maxOrders, keep ? '1' : '0'])) === 1;
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
