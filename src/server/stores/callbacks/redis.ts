/** The callbacks' store in Redis (`svc-checkout/server/redis`): outcomes claimed and completed across processes. */
import { redisKeys, type RedisKeys } from '../keys.js';
import type { SharedStoreState } from '../shared.js';
import { StoreUnavailableError } from '../shared.js';
import { CircuitOpenError, type RedisConnection } from '../../redis/connection.js';
import type { ProcessLease } from '../../redis/process-lease.js';
import type { Replication } from '../../redis/replicas.js';
import type { CallbackClaim, CallbackStore } from './port.js';

// Each script runs atomically in Redis: no other process's command comes between its reads and writes. Every
// key of one script shares one hash slot (a cluster runs a script on one node).

/**
 * KEYS[1] the outcome's key; ARGV[1] this claim's mark (`busy:<process>:<claim>`); ARGV[2] how long it is kept.
 * Answers `new`, `done`, or the mark of the claim that holds it.
 */
const CLAIM = `local state = redis.call('GET', KEYS[1])
if state == 'done' then return 'done' end
if state then return state end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'new'`;

/** Takes a claim over from a holder that is gone, only if it is still the claim that was read (ARGV[1]). */
const TAKE_OVER = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`;

/** Forgets a claim only if it is still this process's (a holder known gone may have passed it to another). */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Holds a claim again after an outage or a failover: the new primary may not have it. Only a claim nobody holds is
 * taken.
 */
const RECLAIM = `local state = redis.call('GET', KEYS[1])
if state == ARGV[1] then return 1 end
if state then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** The process a claim's mark names (`busy:<process>:<claim>`); none for a mark of a kit before process leases. */
const HOLDER = /^busy:([0-9a-f-]{36}):/;

/**
 * De-duplicates outcomes across processes. A claim names its process, and stays held while that process's lease does
 * (process-lease.ts): it is taken over only from a holder known gone, never because a renewal could not reach Redis.
 * Where Redis has replicas, a claim and a completion count only once a replica acknowledged them (replicas.ts).
 */
export class RedisCallbackStore implements CallbackStore, SharedStoreState {
  readonly backend = 'redis';
  /** Whether Redis answers now and this process holds its lease (the readiness answer says so). */
  get available(): boolean {
    return this.connection.available && this.lease.live;
  }
  /** Whether a replica acknowledges the kit's writes, where they wait for one (the readiness answer says so). */
  get replicas(): 'acknowledging' | 'not-acknowledging' | undefined {
    if (!this.replication.waiting) return undefined;
    return this.replication.acknowledged ? 'acknowledging' : 'not-acknowledging';
  }
  /** This process's claims, by their marks: only the claimant releases. */
  readonly #marks = new Map<string, string>();
  /**
   * Handled here, not yet written (Redis was away, no replica acknowledged it, or the write is under way): written
   * again every second and before Redis counts as back; the claim stays this process's until then.
   */
  readonly #unwritten = new Set<string>();
  readonly #writing = new Set<string>();
  /** Claims whose answer never came: the claim may have been made, so it is taken back when Redis returns. */
  readonly #unsure = new Map<string, string>();
  readonly #keys: RedisKeys;
  readonly #retry: ReturnType<typeof setInterval>;

  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    private readonly lease: ProcessLease,
    private readonly replication: Replication,
    private readonly ttlMs: number,
    readonly merchantId: string | undefined,
  ) {
    this.#keys = redisKeys(prefix);
    connection.onRecovery(() => this.#recover());
    this.#retry = setInterval(() => {
      if (!this.connection.available || !this.replication.acknowledged) return;
      for (const id of this.#unwritten) if (!this.#writing.has(id)) this.#write(id).catch(() => undefined);
    }, 1_000);
    this.#retry.unref?.();
  }

  #key(id: string): string {
    return this.#keys.callback(id);
  }

  /** A script whose answer may not come: the claim it makes is then taken back when Redis returns. */
  async #unsureOf(key: string, mark: string, send: Promise<unknown>): Promise<unknown> {
    try {
      return await send;
    } catch (error) {
      if (error instanceof StoreUnavailableError && !(error instanceof CircuitOpenError)) this.#unsure.set(key, mark);
      throw error;
    }
  }

  async claim(id: string): Promise<CallbackClaim> {
    if (this.#unwritten.has(id)) return 'done';
    if (!this.lease.live) throw new CircuitOpenError('this process could not renew its lease in Redis: it takes no claim until it does');
    if (!this.replication.acknowledged) throw new CircuitOpenError("no replica acknowledges the kit's writes");
    const key = this.#key(id);
    const mark = `busy:${this.lease.id}:${crypto.randomUUID()}`;
    const claim = String(await this.#unsureOf(key, mark, this.connection.script(CLAIM, [key], [mark, this.ttlMs])));
    if (claim === 'done') return 'done';
    if (claim !== 'new') {
      if (!claim.startsWith('busy:')) throw new TypeError(`unexpected claim from Redis: ${claim}`);
      if (!(await this.#holderGone(id, claim))) return 'busy';
      const taken = await this.#unsureOf(key, mark, this.connection.script(TAKE_OVER, [key], [claim, mark, this.ttlMs]));
      if (Number(taken) !== 1) return 'busy';
    }
    // Known here before anything else runs: another handling of the same outcome in this process finds it busy.
    this.#marks.set(id, mark);
    // Counted only once a replica has it: a failover to a replica without it would let another process claim it.
    let acknowledged: boolean;
    try {
      acknowledged = await this.replication.confirm(key);
    } catch (error) {
      this.#marks.delete(id);
      if (error instanceof StoreUnavailableError) this.#unsure.set(key, mark);
      throw error;
    }
    if (!acknowledged) {
      this.#marks.delete(id);
      await this.connection.script(RELEASE, [key], [mark]).catch(() => this.#unsure.set(key, mark));
      throw new StoreUnavailableError('no replica acknowledged the claim: the callback is answered 503');
    }
    return 'new';
  }

  /** A claim's holder is gone: its process lease lapsed (or it is this process, which no longer runs it). */
  async #holderGone(id: string, mark: string): Promise<boolean> {
    const holder = HOLDER.exec(mark)?.[1];
    if (holder === undefined) return false; // a claim of a kit before process leases: it lapses on its own
    if (holder === this.lease.id) return this.#marks.get(id) !== mark;
    return !(await this.lease.held(holder));
  }

  async complete(id: string): Promise<void> {
    // Marked before it is sent: a recovery that runs meanwhile sees it pending, and this process answers it as done.
    this.#unwritten.add(id);
    await this.#write(id);
  }

  /**
   * Writes a completion; it counts once a replica acknowledged it, and is written again until one does (while none
   * acknowledges, the write is sent and kept). Its claim stays this process's until then.
   */
  async #write(id: string, recovering = false): Promise<void> {
    this.#writing.add(id);
    try {
      await this.connection.run(this.#key(id), ['SET', this.#key(id), 'done', 'PX', String(this.ttlMs)], recovering);
      if (!this.replication.acknowledged || !(await this.replication.confirm(this.#key(id), { recovering }))) return;
      this.#unwritten.delete(id);
      this.#marks.delete(id);
    } finally {
      this.#writing.delete(id);
    }
  }

  async release(id: string): Promise<void> {
    const mark = this.#marks.get(id);
    this.#marks.delete(id);
    if (!mark) return;
    await this.#unsureOf(this.#key(id), mark, this.connection.script(RELEASE, [this.#key(id)], [mark]));
  }

  /** Stops writing again (the adapter closes). */
  stop(): void {
    clearInterval(this.#retry);
  }

  async #recover(): Promise<void> {
    for (const id of [...this.#unwritten]) await this.#write(id, true);
    // Handlings still running keep their claims: one the primary lost (a failover) is taken again.
    for (const [id, mark] of [...this.#marks]) {
      if (!this.#unwritten.has(id)) await this.connection.script(RECLAIM, [this.#key(id)], [mark, this.ttlMs], true);
    }
    for (const [key, mark] of [...this.#unsure]) {
      await this.connection.script(RELEASE, [key], [mark], true);
      this.#unsure.delete(key);
    }
  }
}
