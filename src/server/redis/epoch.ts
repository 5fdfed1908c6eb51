/** Redis came back without the kit's data: the epoch key tells. */
import type { Logger } from '../http/http.js';
import type { RedisConnection } from './connection.js';

/** Says when Redis came back without the kit's data: its epoch key, written once, gone or replaced. */
export class Epoch {
  #value: string | undefined;
  #beating: Promise<void> | undefined;
  constructor(
    private readonly connection: RedisConnection,
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

  /**
   * The heartbeat: GET on the probe; a missing or other epoch means Redis lost what the kit wrote. One at a time: a beat
   * that came while another wrote the epoch afresh read that new epoch as "another", and the loss was said twice.
   */
  beat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => (this.#beating = undefined));
    return this.#beating;
  }

  async #beat(): Promise<void> {
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
