/**
 * `svc-checkout/server/redis`: the kit's shared state for several processes, in Redis, through the `redis`
 * package (node-redis, an optional peer dependency): callback de-duplication with short leases, throttle counts,
 * the orders to reconcile, and the status bus (pub/sub) that brings a callback one process verified to a payer
 * streaming from another. A plain client, a cluster client and a Sentinel client all fit (redis-link.ts).
 *
 * Redis going away loses nothing: callbacks are answered 503 (the service sends them again, and they are handled
 * once when Redis is back), throttles count in each process, and the status streams query the service instead
 * of waiting for callbacks. A heartbeat notices a Redis that stopped answering within `commandTimeoutMs`, and
 * until it answers again every call fails at once (a circuit breaker) rather than after a timeout each. Before
 * Redis counts as back, each process writes the completions it could not write and takes back the claims it is
 * unsure of. The kit says so in its log once when Redis goes, once when it is back, and when Redis came back
 * without the kit's data. A kit that cannot reach Redis at start, or whose Redis would forget handled callbacks,
 * does not start.
 */
import { errorMessage } from '../http/http.js';
import { checkDurability, type DurabilityRisk } from './durability.js';
import {
  clientLink,
  clusterLink,
  isCluster,
  isSentinel,
  sentinelLink,
  type AnyRedisClient,
  type LinkEvents,
  type RedisClientLike,
} from './link.js';
import { resolveRedisConfig, type RedisKitOptions } from '../config/redis.js';

export type { RedisKitOptions } from '../config/redis.js';

export type { RedisClientLike, RedisClusterLike, RedisSentinelLike, AnyRedisClient } from './link.js';
export type { DurabilityRisk } from './durability.js';
import type { CallbackStore } from '../stores/callbacks/port.js';
import { RedisCallbackStore } from '../stores/callbacks/redis.js';
import type { CheckoutStore } from '../stores/checkouts/port.js';
import { redisKeys } from '../stores/keys.js';
import { RedisCheckoutStore } from '../stores/checkouts/redis.js';
import type { ReconciliationStore } from '../stores/reconciliation/port.js';
import { RedisReconciliationStore } from '../stores/reconciliation/redis.js';
import type { StatusBus } from '../stores/status-bus/port.js';
import { RedisStatusBus } from '../stores/status-bus/redis.js';
import type { ThrottleStore } from '../stores/throttle/port.js';
import { RedisThrottleStore } from '../stores/throttle/redis.js';
import type { TicketStore } from '../stores/tickets/port.js';
import { RedisTicketStore } from '../stores/tickets/redis.js';
import { RedisConnection } from './connection.js';
import { Epoch } from './epoch.js';
import { Health } from './health.js';
import { ProcessLease } from './process-lease.js';
import { Replication } from './replicas.js';

export { RedisCallbackStore, RedisCheckoutStore, RedisReconciliationStore, RedisStatusBus, RedisThrottleStore, RedisTicketStore };


/** What `createMerchantHandler` takes: `createMerchantHandler({ ...options, ...redis.stores })`. */
export interface RedisKit {
  callbackStore: RedisCallbackStore;
  throttleStore: RedisThrottleStore;
  checkoutStore: RedisCheckoutStore;
  ticketStore: RedisTicketStore;
  statusBus: RedisStatusBus;
  reconciliationStore: RedisReconciliationStore;
  /** The six, to spread into `createMerchantHandler`'s options. */
  readonly stores: {
    callbackStore: CallbackStore;
    throttleStore: ThrottleStore;
    checkoutStore: CheckoutStore;
    ticketStore: TicketStore;
    statusBus: StatusBus;
    reconciliationStore: ReconciliationStore;
  };
  /** The merchant the keys are scoped to, when `merchantId` was given. */
  readonly merchantId: string | undefined;
  readonly keyPrefix: string;
  /** Whether Redis answers now. */
  readonly available: boolean;
  /** Unsubscribes and closes the connections the adapter opened (a client you gave stays open). */
  close(): Promise<void>;
}

/** The kit could not reach Redis at start. */
export class RedisConnectError extends Error {
  override readonly name: string = 'RedisConnectError';
}

/** Redis would forget handled callbacks, and `acceptDataLoss` was not given. */
export class RedisDurabilityError extends RedisConnectError {
  override readonly name = 'RedisDurabilityError';
  constructor(
    message: string,
    readonly risks: readonly DurabilityRisk[],
  ) {
    super(message);
  }
}

// Each script runs atomically in Redis: no other process's command comes between its reads and writes. Every
// key of one script shares one hash slot (a cluster runs a script on one node).

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



/**
 * Connects to Redis and returns the kit's four shared stores. Rejects with `RedisConnectError` when Redis cannot
 * be reached within `connectTimeoutMs` (a kit that would silently keep state per process must not start), and
 * with `RedisDurabilityError` when its settings would let it forget handled callbacks.
 */
export async function connectRedis(redisOptions: RedisKitOptions = {}): Promise<RedisKit> {
  const options = resolveRedisConfig(redisOptions);
  const { keyPrefix: prefix, url, logger, connectTimeoutMs, commandTimeoutMs } = options;
  const given = options.client;
  const where = given ? (isCluster(given) ? 'the given cluster' : isSentinel(given) ? 'the given Sentinel primary' : 'the given client') : shown(url);
  const health = new Health(logger, where, options.merchantId);
  let started = false;
  let subscribed = false;

  let client: AnyRedisClient;
  if (given) {
    client = given;
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
  }

  // Set below: the link reports to the connection and the bus, which need the link.
  let connection: RedisConnection | undefined;
  let statusBus: RedisStatusBus | undefined;
  const events: LinkEvents = {
    lost: (cause) => {
      if (started) health.down(cause);
    },
    ready: () => connection?.nudge(),
    subscription: (live) => {
      subscribed = live;
      statusBus?.setLive(live && health.up);
    },
  };
  const link = isCluster(client) ? clusterLink(client, events) : isSentinel(client) ? sentinelLink(client, events) : clientLink(client, events, !given);
  const keys = redisKeys(prefix);
  let epoch: Epoch | undefined;
  connection = new RedisConnection(link, health, commandTimeoutMs, options.recoveryHoldMs, () => epoch!.beat());
  statusBus = new RedisStatusBus(connection, keys.statusChannel, options.merchantId);
  const bus = statusBus;
  // Redis going away reaches the streams: they query the service until it is back.
  health.onChange((up) => bus.setLive(up && subscribed));
  epoch = new Epoch(connection, keys.epoch, logger, where);
  // A failover noticed by the lease's beat counts as an outage: each process writes again, before any takes a claim.
  const replication = new Replication(connection, options.replicas, options.replicaTimeoutMs, commandTimeoutMs, logger, where, (cause) => health.switched(cause));
  const lease = new ProcessLease(connection, keys.process, options.leaseMs, replication);

  let risks: DurabilityRisk[] = [];
  try {
    await withTimeout(
      (async () => {
        await link.start(bus.channel, (message) => bus.receive(message));
        await link.send(undefined, ['PING']);
        if (link.kind === 'client') {
          const info = String(await link.send(undefined, ['INFO', 'cluster']).catch(() => ''));
          if (/cluster_enabled:1/.test(info)) {
            throw new RedisConnectError(
              `svc-checkout: Redis at ${where} is a node of a cluster: most keys live on other nodes (MOVED). ` +
                "Give connectRedis a cluster client: connectRedis({ client: createCluster({ rootNodes: [{ url }] }), merchantId })",
            );
          }
        }
        risks = (await checkDurability((args) => link.primaries(args))).risks;
        if (risks.length === 0 || options.acceptDataLoss) {
          await epoch!.establish(true);
          await replication.detect();
          await lease.renew(true);
        }
      })(),
      connectTimeoutMs,
      'connecting',
    );
  } catch (error) {
    await link.close();
    if (error instanceof RedisConnectError) throw error;
    throw new RedisConnectError(
      `svc-checkout: cannot reach Redis at ${where} (${errorMessage(error)}). The kit shares callbacks, throttles and ` +
        'status updates between its processes through it, and does not start without it.',
      { cause: error },
    );
  }
  const unsafe = risks.map((risk) => `${risk.setting} is ${risk.value}: ${risk.why}`).join('; ');
  if (risks.length > 0 && !options.acceptDataLoss) {
    await link.close();
    throw new RedisDurabilityError(
      `svc-checkout: Redis at ${where} may forget the callbacks the kit handled, and then hand a payment to onCallback twice: ${unsafe}. ` +
        'Change the setting, or pass acceptDataLoss: true to start anyway (docs/reliability.md).',
      risks,
    );
  }
  if (risks.length > 0) logger.warn(`svc-checkout: Redis at ${where} may forget handled callbacks (accepted with acceptDataLoss): ${unsafe}.`);
  started = true;
  bus.setLive(subscribed);
  connection.start();
  lease.start();
  health.publish();

  const callbackStore = new RedisCallbackStore(connection, prefix, lease, replication, options.ttlMs, options.merchantId);
  const throttleStore = new RedisThrottleStore(connection, prefix, options.merchantId, options.openLeaseMs);
  const reconciliationStore = new RedisReconciliationStore(connection, prefix, options.maxOrders, options.merchantId);
  const checkoutStore = new RedisCheckoutStore(connection, prefix, options.merchantId);
  const ticketStore = new RedisTicketStore(connection, prefix, options.merchantId);
  return {
    callbackStore,
    throttleStore,
    checkoutStore,
    ticketStore,
    statusBus: bus,
    reconciliationStore,
    stores: { callbackStore, throttleStore, checkoutStore, ticketStore, statusBus: bus, reconciliationStore },
    merchantId: options.merchantId,
    keyPrefix: prefix,
    get available() {
      return connection!.available;
    },
    async close() {
      started = false;
      connection!.stop();
      lease.stop();
      callbackStore.stop();
      throttleStore.close();
      await link.close();
    },
  };
}
