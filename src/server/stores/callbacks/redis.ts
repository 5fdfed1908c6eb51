/** The callbacks' store in Redis (`svc-checkout/server/redis`): outcomes claimed and completed across processes. */
import { redisKeys, type RedisKeys } from '../keys.js';
import type { SharedStoreState } from '../shared.js';
import { StoreUnavailableError } from '../shared.js';
import { CircuitOpenError, type RedisConnection } from '../../redis/connection.js';
import type { CallbackClaim, CallbackStore } from './port.js';

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
 * Holds a claim again after an outage: its lease may have run out while Redis was away (renewals could not reach it),
 * and nobody could claim it meanwhile (every process's breaker was open). Only a claim nobody holds is taken.
 */
const RECLAIM = `local state = redis.call('GET', KEYS[1])
if state == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if state then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

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
  /**
   * Handled here, not yet written (Redis was away, or the write is under way): written before Redis counts as back,
   * or by the claim's own renewal once it is; the claim stays held until then.
   */
  readonly #unwritten = new Set<string>();
  /** Claims whose answer never came: the claim may have been made, so it is taken back when Redis returns. */
  readonly #unsure = new Map<string, string>();
  readonly #keys: RedisKeys;

  constructor(
    private readonly connection: RedisConnection,
    prefix: string,
    private readonly leaseMs: number,
    private readonly ttlMs: number,
    readonly merchantId: string | undefined,
  ) {
    this.#keys = redisKeys(prefix);
    connection.onRecovery(() => this.#recover());
  }

  #key(id: string): string {
    return this.#keys.callback(id);
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
      // While the handling runs the lease is renewed; once it is handled, the same beat writes the completion until it
      // is written (a completion refused while Redis recovers is written here, at the latest, once it is back).
      const renewal = setInterval(() => {
        const written = this.#unwritten.has(id) ? this.#write(id) : this.connection.script(RENEW, [key], [mark, this.leaseMs]);
        written.catch(() => undefined);
      }, Math.max(100, Math.floor(this.leaseMs / 3)));
      renewal.unref?.();
      this.#marks.set(id, { mark, renewal });
    }
    return claim;
  }

  async complete(id: string): Promise<void> {
    // Marked before it is sent: a recovery that runs meanwhile sees it pending, and this process answers it as done.
    this.#unwritten.add(id);
    await this.#write(id);
  }

  /** Writes a completion; its claim is held (renewed) until this succeeds. */
  async #write(id: string, recovering = false): Promise<void> {
    await this.connection.run(this.#key(id), ['SET', this.#key(id), 'done', 'PX', String(this.ttlMs)], recovering);
    this.#unwritten.delete(id);
    this.#stopRenewal(id);
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
    for (const id of [...this.#unwritten]) await this.#write(id, true);
    // Handlings still running keep their claims: a lease that lapsed while Redis was away is taken again.
    for (const [id, { mark }] of [...this.#marks]) {
      if (!this.#unwritten.has(id)) await this.connection.script(RECLAIM, [this.#key(id)], [mark, this.leaseMs], true);
    }
    for (const [key, mark] of [...this.#unsure]) {
      await this.connection.script(RELEASE, [key], [mark], true);
      this.#unsure.delete(key);
    }
  }
}
