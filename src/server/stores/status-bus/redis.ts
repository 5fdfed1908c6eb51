/** Status updates through Redis pub/sub (`svc-checkout/server/redis`). */
import type { SharedStoreState } from '../shared.js';
import { StoreUnavailableError } from '../shared.js';
import type { RedisConnection } from '../../redis/connection.js';
import { statusUpdateOf, type StatusBus, type StatusBusListener, type StatusUpdate } from './port.js';

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
    private readonly connection: RedisConnection,
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
