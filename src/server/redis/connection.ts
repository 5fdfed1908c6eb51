/**
 * Commands to Redis through a circuit breaker (`Connection`): what every Redis store of the kit sends its commands
 * and scripts through.
 */
import { errorMessage } from '../http/http.js';
import { StoreUnavailableError } from '../stores/shared.js';
import type { Health } from './health.js';
import type { RedisLink } from './link.js';

/** Redis is known to be away: nothing was sent (the circuit breaker is open). */
export class CircuitOpenError extends StoreUnavailableError {}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Errors of a connection rather than of a command: Redis (or the node holding the key) is away or changing. */
const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|socket|closed|offline|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|READONLY|No such|not connected|reconnect/i;

/**
 * Runs commands through a circuit breaker. A command later than the timeout alone does not make Redis away (a
 * swamped process reads its answers late too): the probe decides, on a connection of its own. While Redis is
 * away every command fails at once; the heartbeat, once a second (four times while away), finds it back, and
 * the recovery tasks run before it counts as back.
 */
export class RedisConnection {
  #probing: Promise<boolean> | undefined;
  #beat: ReturnType<typeof setTimeout> | undefined;
  #recovering: Promise<void> | undefined;
  #running = false;
  #closed = false;
  readonly #tasks: (() => Promise<void>)[] = [];

  constructor(
    readonly link: RedisLink,
    readonly health: Health,
    private readonly timeoutMs: number,
    private readonly holdMs: number,
    /** The heartbeat's command, on the probe; it checks what it answers (the epoch) itself. */
    private readonly heartbeat: () => Promise<void>,
  ) {}

  /** Redis answers: the heartbeat finds it, and the client's connection is up. */
  get available(): boolean {
    return this.health.up && this.link.ready;
  }

  /** A task that must run before Redis counts as back (write what could not be written). */
  onRecovery(task: () => Promise<void>): void {
    this.#tasks.push(task);
  }

  start(): void {
    this.#running = true;
    this.#schedule();
  }

  stop(): void {
    this.#running = false;
    this.#closed = true;
    clearTimeout(this.#beat);
  }

  /** The client said a connection is ready again: check at once rather than at the next beat. */
  nudge(): void {
    if (!this.#running || this.health.up) return;
    clearTimeout(this.#beat);
    void this.#heartbeat().finally(() => this.#schedule());
  }

  #schedule(): void {
    if (!this.#running) return;
    clearTimeout(this.#beat);
    this.#beat = setTimeout(() => void this.#heartbeat().finally(() => this.#schedule()), this.health.up ? 1_000 : 250);
    this.#beat.unref?.();
  }

  async #heartbeat(): Promise<void> {
    try {
      await this.#timed(this.heartbeat(), 'the heartbeat');
    } catch (error) {
      this.health.down(error instanceof StoreUnavailableError ? error.message : errorMessage(error));
      return;
    }
    if (!this.health.up) await this.#recover();
  }

  #recover(): Promise<void> {
    this.#recovering ??= (async () => {
      for (const task of this.#tasks) await task();
      // Every other process writes what it could not meanwhile, before any of them takes a claim again.
      await pause(this.holdMs);
      // What this process did during the hold (a completion refused by the open breaker) is written too, before any
      // process takes a claim: the tasks run again. Anything after this pass is written by its claim's own renewal.
      for (const task of this.#tasks) await task();
      if (this.#running) this.health.back();
    })()
      .catch(() => undefined) // away again: the next beat tries again
      .finally(() => {
        this.#recovering = undefined;
      });
    return this.#recovering;
  }

  /** Whether Redis answers a PING on the probe in time; one probe at a time. */
  reachable(): Promise<boolean> {
    this.#probing ??= this.#timed(this.link.probe(undefined, ['PING']), 'PING')
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        this.#probing = undefined;
      });
    return this.#probing;
  }

  /** The answer, or `StoreUnavailableError` after the timeout. */
  async #timed<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      // Timers run before the socket is read in each turn of the event loop: on a busy process, an answer that
      // came in time may still be unread when the timer fires. One turn more lets it be read first.
      timer = setTimeout(
        () => setImmediate(() => reject(new StoreUnavailableError(`Redis did not answer ${what} within ${this.timeoutMs} ms`))),
        this.timeoutMs,
      );
    });
    promise.catch(() => undefined); // a late failure after the timeout is nobody's to see
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One command through the breaker; `recovering` lets the recovery tasks through while it is open. */
  run(key: string | undefined, args: string[], recovering = false): Promise<unknown> {
    return this.call(() => this.link.send(key, args), recovering);
  }

  script(source: string, keys: string[], args: (string | number)[], recovering = false): Promise<unknown> {
    return this.run(keys[0], ['EVAL', source, String(keys.length), ...keys, ...args.map(String)], recovering);
  }

  async call(send: () => Promise<unknown>, recovering = false): Promise<unknown> {
    if (this.#closed) throw new CircuitOpenError('the Redis adapter is closed');
    if (!this.health.up && !recovering) throw new CircuitOpenError('Redis is unreachable');
    if (!this.link.ready) {
      this.health.down('not connected');
      throw new CircuitOpenError('Redis is unreachable');
    }
    try {
      return await this.#timed(send(), 'a command');
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        if (!this.link.ready || !(await this.reachable())) this.health.down(error.message);
        throw error;
      }
      // A script or type error is a bug to see; a connection that failed under the command is Redis going away.
      if (!this.link.ready || CONNECTION_ERROR.test(errorMessage(error))) {
        if (!this.link.ready || !(await this.reachable())) this.health.down(errorMessage(error));
        throw new StoreUnavailableError('Redis is unreachable', { cause: error });
      }
      throw error;
    }
  }
}
