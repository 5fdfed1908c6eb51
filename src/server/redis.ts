/**
 * `svc-checkout/server/redis`: the kit's shared state for several processes, in Redis, through the `redis`
 * package (node-redis, an optional peer dependency): callback de-duplication with leases, throttle counts, and
 * the status bus (pub/sub) that brings a callback one process verified to a payer streaming from another.
 *
 * Redis going away loses nothing: callbacks are answered 503 (the service sends them again, and they are handled
 * once when Redis is back), throttles count in each process, and the status streams query the service instead
 * of waiting for callbacks. The kit says so in its log once when Redis goes, and once when it is back;
 * node-redis reconnects, and resubscribes, on its own. A kit that cannot reach Redis at start does not start.
 */
import { StoreUnavailableError, type CallbackClaim, type CallbackStore } from './callback-store.js';
import { errorMessage, type Logger } from './http.js';
import { statusUpdateOf, type StatusBus, type StatusBusListener, type StatusUpdate } from './status-bus.js';
import { MemoryThrottleStore, type ThrottleResult, type ThrottleStore } from './throttle.js';

/** The parts of a node-redis client (v4 to v6) the adapter uses, so that any of them fits. */
export interface RedisClientLike {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  duplicate(): unknown;
  sendCommand(args: string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  on(event: string, listener: (...args: any[]) => void): unknown;
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
  destroy?(): unknown;
  disconnect?(): Promise<unknown>;
}

export interface RedisKitOptions {
  /** `redis://[[user]:password@]host[:port][/db]` (or `rediss://`). Default `redis://127.0.0.1:6379`. */
  url?: string;
  /**
   * A node-redis client you made (TLS, ACLs, a cluster's node): used for commands, and duplicated for pub/sub.
   * Connected here when it is not yet. Without it, the adapter makes its own from `url`.
   */
  client?: RedisClientLike;
  /** Prefix of every key and of the channel. Default `svc-checkout:`; give each merchant account its own. */
  keyPrefix?: string;
  /** How long a claimed callback stays claimed when its process never completes it. Default 60 s. */
  leaseMs?: number;
  /** How long a handled `notifyId` is remembered. Default 73 hours: the service retries for 72. */
  ttlMs?: number;
  /** A command that takes longer counts as Redis being unreachable (until one answers in time). Default 5 000 ms. */
  commandTimeoutMs?: number;
  /** How long the start may take before it fails. Default 5 000 ms. */
  connectTimeoutMs?: number;
  /** Where the adapter says that Redis went away and came back. Default `console`. */
  logger?: Logger;
}

/** What `createMerchantHandler` takes: `createMerchantHandler({ ...options, ...redis.stores })`. */
export interface RedisKit {
  callbackStore: CallbackStore;
  throttleStore: ThrottleStore;
  statusBus: StatusBus;
  /** The three, to spread into `createMerchantHandler`'s options. */
  readonly stores: { callbackStore: CallbackStore; throttleStore: ThrottleStore; statusBus: StatusBus };
  /** Whether Redis answers now. */
  readonly available: boolean;
  /** Unsubscribes and closes the connections the adapter opened. */
  close(): Promise<void>;
}

/** The kit could not reach Redis at start. */
export class RedisConnectError extends Error {
  override readonly name = 'RedisConnectError';
}

// Each script runs atomically in Redis: no other process's command comes between its reads and writes.

/** KEYS[1] the notifyId's key; ARGV[1] this claim's owner mark; ARGV[2] the lease in ms. */
const CLAIM = `local state = redis.call('GET', KEYS[1])
if state == 'done' then return 'done' end
if state then return 'busy' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'new'`;

/** Forgets a claim only if it is still this process's (a lease that ran out may have passed it to another). */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** A fixed window: counted, and given its end on the first call. Returns the count and the ms left. */
const HIT = `local count = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}`;

/** The address without its credentials, for messages. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return 'the configured address';
  }
}

/** Says once that Redis went away, and once that it came back. */
class Health {
  #up = true;
  readonly #listeners = new Set<(up: boolean) => void>();
  constructor(
    private readonly logger: Logger,
    private readonly where: string,
  ) {}

  get up(): boolean {
    return this.#up;
  }

  onChange(listener: (up: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  down(cause: string): void {
    if (!this.#up) return;
    this.#up = false;
    this.logger.error(
      `svc-checkout: Redis at ${this.where} is unreachable (${cause}). Until it returns: status streams query the service ` +
        'instead of waiting for callbacks, callbacks are answered 503 (the service sends them again), throttles count in each process.',
    );
    for (const listener of [...this.#listeners]) listener(false);
  }

  back(): void {
    if (this.#up) return;
    this.#up = true;
    this.logger.warn(`svc-checkout: Redis at ${this.where} is back: callbacks, throttles and status updates are shared again.`);
    for (const listener of [...this.#listeners]) listener(true);
  }
}

/**
 * Runs one command; a client that is down, or an answer later than the timeout, is `StoreUnavailableError`.
 * A late answer alone does not make Redis away: a process swamped with requests reads its answers late too. A
 * PING on a connection of its own (the probe) decides: Redis is away only when that goes unanswered as well.
 */
class Commands {
  #probing: Promise<boolean> | undefined;
  constructor(
    private readonly client: RedisClientLike,
    private readonly probe: RedisClientLike,
    private readonly health: Health,
    private readonly timeoutMs: number,
    /** Called after a command succeeded while Redis counted as away (it was slow, not gone): it may be back. */
    private readonly answered: () => void = () => undefined,
  ) {}

  /** Whether Redis answers a PING on the probe's connection in time; one probe at a time. */
  reachable(): Promise<boolean> {
    this.#probing ??= withTimeout(this.probe.sendCommand(['PING']), this.timeoutMs, 'PING')
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        this.#probing = undefined;
      });
    return this.#probing;
  }

  async run(args: string[]): Promise<unknown> {
    if (!this.client.isReady) {
      this.health.down('not connected');
      throw new StoreUnavailableError('Redis is unreachable');
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      // Timers run before the socket is read in each turn of the event loop: on a busy process, an answer that
      // came in time may still be unread when the timer fires. One turn more lets it be read first.
      timer = setTimeout(
        () => setImmediate(() => reject(new StoreUnavailableError(`Redis did not answer within ${this.timeoutMs} ms`))),
        this.timeoutMs,
      );
    });
    try {
      const answer = await Promise.race([this.client.sendCommand(args), late]);
      if (!this.health.up) this.answered();
      return answer;
    } catch (error) {
      // A script or type error is a bug to see; a connection that failed under the command is Redis going away.
      if (error instanceof StoreUnavailableError) {
        if (!this.client.isReady || !(await this.reachable())) this.health.down(errorMessage(error));
        throw error;
      }
      if (!this.client.isReady) {
        this.health.down(errorMessage(error));
        throw new StoreUnavailableError('Redis is unreachable', { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  script(source: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.run(['EVAL', source, String(keys.length), ...keys, ...args.map(String)]);
  }
}

/** De-duplicates callbacks by `notifyId` across processes, with a lease on each claim. */
export class RedisCallbackStore implements CallbackStore {
  /** This process's claims: only the claimant releases (a lease that ran out may have passed it on). */
  readonly #marks = new Map<string, string>();
  constructor(
    private readonly commands: Commands,
    private readonly prefix: string,
    private readonly leaseMs: number,
    private readonly ttlMs: number,
  ) {}

  #key(notifyId: string): string {
    return `${this.prefix}callback:${notifyId}`;
  }

  async claim(notifyId: string): Promise<CallbackClaim> {
    const mark = `busy:${crypto.randomUUID()}`;
    const claim = String(await this.commands.script(CLAIM, [this.#key(notifyId)], [mark, this.leaseMs]));
    if (claim !== 'new' && claim !== 'busy' && claim !== 'done') throw new TypeError(`unexpected claim from Redis: ${claim}`);
    if (claim === 'new') this.#marks.set(notifyId, mark);
    return claim;
  }

  async complete(notifyId: string): Promise<void> {
    this.#marks.delete(notifyId);
    await this.commands.run(['SET', this.#key(notifyId), 'done', 'PX', String(this.ttlMs)]);
  }

  async release(notifyId: string): Promise<void> {
    const mark = this.#marks.get(notifyId);
    this.#marks.delete(notifyId);
    if (mark) await this.commands.script(RELEASE, [this.#key(notifyId)], [mark]);
  }
}

/** Counts throttled calls across processes in fixed windows; while Redis is away, in this process. */
export class RedisThrottleStore implements ThrottleStore {
  readonly #local = new MemoryThrottleStore();
  constructor(
    private readonly commands: Commands,
    private readonly prefix: string,
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<ThrottleResult> {
    let answer: unknown;
    try {
      answer = await this.commands.script(HIT, [`${this.prefix}throttle:${key}`], [Math.max(1, Math.ceil(windowMs))]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return this.#local.hit(key, limit, windowMs);
      throw error;
    }
    const [count, left] = Array.isArray(answer) ? answer.map(Number) : [Number.NaN, Number.NaN];
    if (!Number.isFinite(count) || !Number.isFinite(left)) throw new TypeError('unexpected throttle count from Redis');
    return count! <= limit ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs: Math.max(0, left!) };
  }
}

/** Status updates through Redis pub/sub: to this process's listeners at once, to the other processes through Redis. */
export class RedisStatusBus implements StatusBus {
  readonly #listeners = new Set<StatusBusListener>();
  readonly #origin = crypto.randomUUID();
  #live: boolean;

  constructor(
    private readonly commands: Commands,
    readonly channel: string,
  ) {
    this.#live = false;
  }

  get live(): boolean {
    return this.#live;
  }

  /** The subscriber's connection went or came back (node-redis resubscribes by itself). */
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
      await this.commands.run(['PUBLISH', this.channel, JSON.stringify({ origin: this.#origin, update })]);
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

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Closes a connection the adapter opened, whatever state it is in (never connected, closed already). */
async function closeClient(client: RedisClientLike): Promise<void> {
  try {
    if (typeof client.destroy === 'function') client.destroy();
    else await client.disconnect?.();
  } catch {
    // closed already
  }
}

/**
 * Connects to Redis and returns the kit's three shared stores. Rejects with `RedisConnectError` when Redis
 * cannot be reached within `connectTimeoutMs`: a kit that would silently keep state per process must not start.
 */
export async function connectRedis(options: RedisKitOptions = {}): Promise<RedisKit> {
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const where = options.client ? 'the given client' : shown(url);
  const logger = options.logger ?? console;
  const prefix = options.keyPrefix ?? 'svc-checkout:';
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const health = new Health(logger, where);
  let started = false;
  const opened: RedisClientLike[] = [];

  let client: RedisClientLike;
  if (options.client) {
    client = options.client;
  } else {
    let redis: { createClient(options: unknown): unknown };
    try {
      redis = (await import('redis')) as unknown as typeof redis;
    } catch {
      throw new RedisConnectError('svc-checkout/server/redis needs the redis package: npm install redis');
    }
    client = redis.createClient({
      url,
      // Commands fail at once while Redis is away, rather than waiting in memory: the kit has a fallback for each.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: connectTimeoutMs,
        // At start, one failure is enough to refuse; later, reconnect for ever, at most a second apart.
        reconnectStrategy: (retries: number, cause: Error) => (started ? Math.min(100 * (retries + 1), 1_000) : cause),
      },
    }) as RedisClientLike;
    opened.push(client);
  }
  const subscriber = client.duplicate() as RedisClientLike;
  const probe = client.duplicate() as RedisClientLike;
  opened.push(subscriber, probe);

  const ready = () => {
    if (started && client.isReady && subscriber.isReady) health.back();
  };
  const commands = new Commands(client, probe, health, options.commandTimeoutMs ?? 5_000, ready);
  const statusBus = new RedisStatusBus(commands, `${prefix}status`);
  const lost = (error?: unknown) => {
    if (started) health.down(error === undefined ? 'connection closed' : errorMessage(error));
  };
  const subscriberLost = () => statusBus.setLive(false);
  const subscriberReady = () => statusBus.setLive(true);
  for (const each of [client, subscriber]) {
    each.on('error', lost); // without a listener, node-redis would throw its errors
    each.on('end', lost);
    each.on('ready', ready);
  }
  probe.on('error', () => undefined); // its failures answer reachable(); the other two report Redis going away
  subscriber.on('error', subscriberLost);
  subscriber.on('end', subscriberLost);
  subscriber.on('reconnecting', subscriberLost);
  subscriber.on('ready', subscriberReady);

  try {
    await withTimeout(
      (async () => {
        if (!client.isOpen) await client.connect();
        await subscriber.connect();
        await probe.connect();
        await subscriber.subscribe(statusBus.channel, (message) => statusBus.receive(message));
        await client.sendCommand(['PING']);
      })(),
      connectTimeoutMs,
      'connecting',
    );
  } catch (error) {
    await Promise.all(opened.map(closeClient));
    throw new RedisConnectError(
      `svc-checkout: cannot reach Redis at ${where} (${errorMessage(error)}). The kit shares callbacks, throttles and ` +
        'status updates between its processes through it, and does not start without it.',
      { cause: error },
    );
  }
  started = true;
  statusBus.setLive(subscriber.isReady);

  const callbackStore = new RedisCallbackStore(commands, prefix, options.leaseMs ?? 60_000, options.ttlMs ?? 73 * 3_600_000);
  const throttleStore = new RedisThrottleStore(commands, prefix);
  return {
    callbackStore,
    throttleStore,
    statusBus,
    stores: { callbackStore, throttleStore, statusBus },
    get available() {
      return health.up && client.isReady;
    },
    async close() {
      started = false;
      for (const each of [client, subscriber]) {
        each.removeListener('end', lost);
        each.removeListener('ready', ready);
      }
      await subscriber.unsubscribe(statusBus.channel).catch(() => undefined);
      await Promise.all(opened.map(closeClient));
    },
  };
}
