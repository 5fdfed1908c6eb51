/** What the kit knows of each checkout, in Redis (`svc-checkout/server/redis`). */
import { attemptNoteOf, type AttemptNote } from '../../../core/index.js';
import { redisKeys, type RedisKeys } from '../keys.js';
import type { SharedStoreState } from '../shared.js';
import type { RedisConnection } from '../../redis/connection.js';
import { CHECKOUT_RECORD_TTL_MS, type CheckoutRecord, type CheckoutStore } from './port.js';

// Each script runs atomically in Redis: no other process's command comes between its reads and writes. Every
// key of one script shares one hash slot (a cluster runs a script on one node).

/**
 * A checkout's record (port.ts) is a hash: `f` the last attempt forwarded, `l` the earlier scheme's orders,
 * `a:<n>` what attempt n was made for, `n:<n>` which payment it is (its note, JSON). KEYS[1] the record; ARGV[1] the attempts seen (never lowers `f`); ARGV[2] the
 * earlier scheme's count; ARGV[3] the record's life in ms.
 */
const CHECKOUT_SEEN = `local f = tonumber(redis.call('HGET', KEYS[1], 'f'))
if not f or tonumber(ARGV[1]) > f then redis.call('HSET', KEYS[1], 'f', ARGV[1]) end
redis.call('HSET', KEYS[1], 'l', ARGV[2])
return redis.call('PEXPIRE', KEYS[1], ARGV[3])`;

/**
 * KEYS[1] the record; ARGV[1] the attempt about to be forwarded; ARGV[2] its amount (`total currency`); ARGV[3] the
 * life in ms; ARGV[4] its note (JSON), or empty.
 */
const CHECKOUT_FORWARDING = `local f = tonumber(redis.call('HGET', KEYS[1], 'f'))
if not f or tonumber(ARGV[1]) > f then redis.call('HSET', KEYS[1], 'f', ARGV[1]) end
if ARGV[1] == '1' then redis.call('HSETNX', KEYS[1], 'l', '0') end
redis.call('HSET', KEYS[1], 'a:' .. ARGV[1], ARGV[2])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'n:' .. ARGV[1], ARGV[4]) end
return redis.call('PEXPIRE', KEYS[1], ARGV[3])`;

/** KEYS[1] the record; ARGV[1] the attempt; ARGV[2] its note (JSON); ARGV[3] the life in ms. */
const CHECKOUT_NOTED = `local f = tonumber(redis.call('HGET', KEYS[1], 'f'))
if not f or tonumber(ARGV[1]) > f then redis.call('HSET', KEYS[1], 'f', ARGV[1]) end
redis.call('HSET', KEYS[1], 'n:' .. ARGV[1], ARGV[2])
return redis.call('PEXPIRE', KEYS[1], ARGV[3])`;

/** What the kit knows of each checkout, shared: one hash per checkout (its own hash slot in a cluster). */
export class RedisCheckoutStore implements CheckoutStore, SharedStoreState {
  readonly backend = 'redis';
  /** Whether Redis answers now (the readiness answer says so). */
  get available(): boolean {
    return this.connection.available;
  }
  readonly #keys: RedisKeys;
  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    readonly merchantId: string | undefined,
    private readonly ttlMs = CHECKOUT_RECORD_TTL_MS,
  ) {
    this.#keys = redisKeys(prefix);
  }

  #key(checkout: string): string {
    return this.#keys.checkout(checkout);
  }

  async read(checkout: string): Promise<CheckoutRecord | undefined> {
    const answer = await this.connection.run(this.#key(checkout), ['HGETALL', this.#key(checkout)]);
    const fields = fieldsOf(answer);
    const forwarded = Number(fields['f']);
    if (!Number.isSafeInteger(forwarded) || forwarded < 0) return undefined;
    const amounts: Record<number, { total: number; currency: string }> = {};
    const notes: Record<number, AttemptNote> = {};
    for (const [name, value] of Object.entries(fields)) {
      const attempt = /^a:(\d+)$/.exec(name)?.[1];
      const [total, currency] = value.split(' ');
      if (attempt && Number.isSafeInteger(Number(total)) && currency) amounts[Number(attempt)] = { total: Number(total), currency };
      const noted = /^n:(\d+)$/.exec(name)?.[1];
      const note = noted ? attemptNoteOf(parsed(value)) : undefined;
      if (noted && note) notes[Number(noted)] = note;
    }
    const legacy = fields['l'] === undefined ? undefined : Number(fields['l']);
    return {
      forwarded,
      amounts,
      ...(legacy !== undefined && Number.isSafeInteger(legacy) ? { legacy } : {}),
      ...(Object.keys(notes).length > 0 ? { notes } : {}),
    };
  }

  async seen(checkout: string, attempts: number, legacy: number): Promise<void> {
    await this.connection.script(CHECKOUT_SEEN, [this.#key(checkout)], [attempts, legacy, this.ttlMs]);
  }

  async forwarding(checkout: string, attempt: number, amount: { total: number; currency: string }, note?: AttemptNote): Promise<void> {
    await this.connection.script(CHECKOUT_FORWARDING, [this.#key(checkout)], [attempt, `${amount.total} ${amount.currency}`, this.ttlMs, note ? JSON.stringify(note) : '']);
  }

  async noted(checkout: string, attempt: number, note: AttemptNote): Promise<void> {
    await this.connection.script(CHECKOUT_NOTED, [this.#key(checkout)], [attempt, JSON.stringify(note), this.ttlMs]);
  }
}

/** A note's JSON, or `undefined` when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
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
