/** The orders kept for tickets, in Redis (`svc-checkout/server/redis`): a string per ticket, expiring with it. */
import type { RedisConnection } from '../../redis/connection.js';
import { redisKeys, type RedisKeys } from '../keys.js';
import type { SharedStoreState } from '../shared.js';
import type { TicketStore } from './port.js';

/** KEYS[1] the ticket's order: read and deleted in one step, so that two creates never both get it. */
const TAKE = `local order = redis.call('GET', KEYS[1])
if order then redis.call('DEL', KEYS[1]) end
return order`;

export class RedisTicketStore implements TicketStore, SharedStoreState {
  readonly backend = 'redis';
  readonly #keys: RedisKeys;
  get available(): boolean {
    return this.connection.available;
  }
  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    readonly merchantId: string | undefined,
  ) {
    this.#keys = redisKeys(prefix);
  }

  #key(id: string): string {
    return this.#keys.ticket(id);
  }

  async keep(id: string, order: string, ttlMs: number): Promise<void> {
    await this.connection.run(this.#key(id), ['SET', this.#key(id), order, 'PX', String(Math.max(1, Math.ceil(ttlMs)))]);
  }

  async read(id: string): Promise<string | undefined> {
    const order = await this.connection.run(this.#key(id), ['GET', this.#key(id)]);
    return typeof order === 'string' ? order : undefined;
  }

  async take(id: string): Promise<string | undefined> {
    const order = await this.connection.script(TAKE, [this.#key(id)], []);
    return typeof order === 'string' ? order : undefined;
  }
}
