/**
 * Whether Redis answers, as the kit says it: once in the log when it goes, once when it is back, and on the
 * `svc-checkout:redis` channel (docs/observability.md).
 */
import type { Logger } from '../http/http.js';
import { publish, redisChannel, type RedisStateMessage } from '../observability/channels.js';

/** Says once that Redis went away, and once that it came back: in the log, and on svc-checkout:redis. */
export class Health {
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
    this.#down(
      `svc-checkout: Redis at ${this.where} is unreachable (${cause}). Until it returns: status streams query the service ` +
        'instead of waiting for callbacks, callbacks are answered 503 (the service sends them again), throttles count in each process.',
    );
  }

  /**
   * Redis answers, but from another primary (a failover the kit noticed by `master_replid`): what the old one had not
   * passed on may be missing. It counts as an outage (the recovery writes again what the kit kept before any claim),
   * said as what it is.
   */
  switched(cause: string): void {
    this.#down(
      `svc-checkout: Redis at ${this.where} changed its primary (${cause}). Callbacks are answered 503 (the service sends ` +
        'them again) while the kit writes again what it kept, before it takes any claim.',
    );
  }

  #down(line: string): void {
    if (!this.#up) return;
    this.#up = false;
    this.logger.error(line);
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
