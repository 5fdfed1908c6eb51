/**
 * A kit process's lease: a key of its own (`<prefix>process:<id>`, `SET … PX leaseMs`) renewed on the probe every
 * third of the lease (at most every second). A claim is taken over from its holder only once the holder's lease is gone
 * (stores/callbacks/redis.ts): the holder is dead, or was cut off from Redis for a whole lease. A lease cannot tell
 * those apart, so the holder stops first: a process whose last renewal was sent more than half a lease ago takes no
 * claim (its callbacks are answered 503, and the readiness answer says Redis is down), long before its key lapses;
 * what it handled before is written when it reaches Redis again, and stays its own until its lease lapses.
 */
import type { RedisConnection } from './connection.js';
import type { Replication } from './replicas.js';

export class ProcessLease {
  /** This process, as its claims name it. */
  readonly id = crypto.randomUUID();
  readonly key: string;
  /** When the last renewal that Redis answered was sent (performance.now()). */
  #renewedAt = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setInterval> | undefined;
  #renewing = false;

  constructor(
    private readonly connection: RedisConnection,
    keyOf: (id: string) => string,
    readonly leaseMs: number,
    private readonly replication: Replication,
  ) {
    this.key = keyOf(this.id);
    // First of the recovery tasks: the lease may have lapsed while Redis was away; it is renewed before anything else.
    connection.onRecovery(() => this.renew(true));
  }

  /** Whether this process may take claims: its last renewal was sent less than half a lease ago. */
  get live(): boolean {
    return performance.now() - this.#renewedAt < this.leaseMs / 2;
  }

  /** Renews the lease on the probe; then asks the replicas (replicas.ts). */
  async renew(recovering = false): Promise<void> {
    const sent = performance.now();
    const { link } = this.connection;
    await this.connection.call(() => link.probe(this.key, ['SET', this.key, String(Date.now()), 'PX', String(this.leaseMs)]), recovering);
    this.#renewedAt = sent;
    await this.replication.beat(this.key, recovering);
  }

  start(): void {
    this.#timer = setInterval(
      () => {
        // One at a time (a wait for a replica may take a while); a renewal that fails leaves the lease to run down:
        // the connection's heartbeat says whether Redis is away.
        if (this.#renewing) return;
        this.#renewing = true;
        this.renew()
          .catch(() => undefined)
          .finally(() => (this.#renewing = false));
      },
      Math.max(50, Math.min(1_000, Math.floor(this.leaseMs / 3))),
    );
    this.#timer.unref?.();
  }

  /** Stops renewing (the adapter closes): its key lapses as a killed process's does. */
  stop(): void {
    clearInterval(this.#timer);
    this.#renewedAt = Number.NEGATIVE_INFINITY;
  }

  /** Whether the process `id` holds a lease now (its key exists; this process's own: whether it is live). */
  async held(id: string): Promise<boolean> {
    if (id === this.id) return this.live;
    const key = this.key.slice(0, -this.id.length) + id;
    return (await this.connection.run(key, ['EXISTS', key])) !== 0;
  }
}
