/**
 * The three kinds of node-redis client the Redis adapter takes — a plain client (one server), a cluster client
 * (`createCluster`) and a Sentinel client (`createSentinel`) — behind the one small surface it uses: run a
 * command (routed by its key on a cluster), probe, publish and subscribe (sharded on a cluster, where a plain
 * channel would cross every node), and run a command on every primary (the durability check).
 */

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

/** A node-redis cluster client (`createCluster`, v5 or later). */
export interface RedisClusterLike {
  readonly isOpen: boolean;
  readonly masters: readonly unknown[];
  connect(): Promise<unknown>;
  nodeClient(node: any): unknown;
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  sSubscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown>;
  sUnsubscribe(channel: string): Promise<unknown>;
  on(event: string, listener: (...args: any[]) => void): unknown;
  destroy?(): unknown;
}

/** A node-redis Sentinel client (`createSentinel`, v5 or later): it follows the primary through failovers. */
export interface RedisSentinelLike {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  acquire(): Promise<unknown>;
  sendCommand(isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  on(event: string, listener: (...args: any[]) => void): unknown;
  destroy?(): unknown;
}

export type AnyRedisClient = RedisClientLike | RedisClusterLike | RedisSentinelLike;

/** What a link reports of its connections, as the client sees them (the adapter's heartbeat decides the rest). */
export interface LinkEvents {
  /** A connection the commands use closed or failed. */
  lost(cause: string): void;
  /** A connection the commands use is ready again. */
  ready(): void;
  /** The subscription's connection went (`false`) or is back and resubscribed (`true`). */
  subscription(live: boolean): void;
}

export interface RedisLink {
  readonly kind: 'client' | 'cluster' | 'sentinel';
  /** Whether the client counts its command connection as up. */
  readonly ready: boolean;
  /** One command; `key` routes it on a cluster. */
  send(key: string | undefined, args: string[]): Promise<unknown>;
  /** One command on a connection of its own where the kind has one (a plain client's probe). */
  probe(key: string | undefined, args: string[]): Promise<unknown>;
  /** One command on each primary (every master of a cluster; the one primary otherwise). */
  primaries(args: string[]): Promise<unknown[]>;
  publish(channel: string, message: string): Promise<unknown>;
  /** Connects what is not connected yet, and subscribes. */
  start(channel: string, listener: (message: string) => void): Promise<void>;
  /** Unsubscribes and closes what the link opened (a client given to it is left open). */
  close(): Promise<void>;
}

export function isCluster(client: AnyRedisClient): client is RedisClusterLike {
  return typeof (client as RedisClusterLike).nodeClient === 'function' && typeof (client as RedisClusterLike).sSubscribe === 'function';
}

export function isSentinel(client: AnyRedisClient): client is RedisSentinelLike {
  return typeof (client as RedisSentinelLike).acquire === 'function' && typeof (client as RedisClientLike).duplicate !== 'function';
}

/** Closes a connection, whatever state it is in (never connected, closed already). */
async function closeQuietly(client: { destroy?(): unknown; disconnect?(): Promise<unknown> }): Promise<void> {
  try {
    if (typeof client.destroy === 'function') client.destroy();
    else await client.disconnect?.();
  } catch {
    // closed already
  }
}

/** A plain client: commands on it, pub/sub and the probe each on a duplicate of it. */
export function clientLink(client: RedisClientLike, events: LinkEvents, ownsClient: boolean): RedisLink {
  const subscriber = client.duplicate() as RedisClientLike;
  const probe = client.duplicate() as RedisClientLike;
  const lost = (error?: unknown) => events.lost(error === undefined ? 'connection closed' : error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  const ready = () => events.ready();
  for (const each of [client, subscriber]) {
    each.on('error', lost); // without a listener, node-redis would throw its errors
    each.on('end', lost);
    each.on('ready', ready);
  }
  probe.on('error', () => undefined); // its failures answer the probe; the other two report Redis going away
  const gone = () => events.subscription(false);
  subscriber.on('error', gone);
  subscriber.on('end', gone);
  subscriber.on('reconnecting', gone);
  subscriber.on('ready', () => events.subscription(true));
  let channel: string | undefined;
  return {
    kind: 'client',
    get ready() {
      return client.isReady;
    },
    send: (_key, args) => client.sendCommand(args),
    probe: (_key, args) => probe.sendCommand(args),
    primaries: async (args) => [await client.sendCommand(args)],
    publish: (name, message) => client.sendCommand(['PUBLISH', name, message]),
    async start(name, listener) {
      if (!client.isOpen) await client.connect();
      await subscriber.connect();
      await probe.connect();
      await subscriber.subscribe(name, (message) => listener(message));
      channel = name;
      events.subscription(subscriber.isReady);
    },
    async close() {
      for (const each of [client, subscriber]) {
        each.removeListener('end', lost);
        each.removeListener('ready', ready);
      }
      if (channel) await subscriber.unsubscribe(channel).catch(() => undefined);
      await Promise.all([subscriber, probe, ...(ownsClient ? [client] : [])].map(closeQuietly));
    },
  };
}

/** A message of the link's own on the status channel (never handed to the bus): the subscription hears itself. */
const PROBE = '\u0000probe:';
/** How often a cluster link hears itself, and how long it may go unheard before it counts its subscription lost. */
const PROBE_MS = 1_000;
const PROBE_LOST_MS = 3_000;

/**
 * A cluster: each command goes to the node of its key; status updates go by sharded pub/sub on the channel's node.
 * node-redis does not move a sharded subscription when its master dies (the promoted replica never hears of it), so
 * the link publishes a probe of its own every second and listens for it: unheard for 3 s, the subscription counts as
 * lost (the streams query the service) and is made again, on the channel's master now.
 */
export function clusterLink(cluster: RedisClusterLike, events: LinkEvents): RedisLink {
  cluster.on('error', () => undefined); // node failures answer the heartbeat, which decides
  cluster.on('node-error', () => undefined);
  cluster.on('node-ready', () => events.ready());
  cluster.on('disconnect', () => events.lost('the cluster connection closed'));
  let channel: string | undefined;
  let heard = 0;
  let live = true;
  let probing: ReturnType<typeof setInterval> | undefined;
  const self = crypto.randomUUID();
  let listener: ((message: string) => void) | undefined;
  const hear = (message: string) => {
    if (!message.startsWith(PROBE)) return listener?.(message);
    if (message !== PROBE + self) return;
    heard = Date.now();
    if (!live) events.subscription((live = true));
  };
  const subscribe = (name: string) => cluster.sSubscribe(name, hear);
  const probe = async () => {
    if (!channel) return;
    await cluster.sendCommand(channel, false, ['SPUBLISH', channel, PROBE + self]).catch(() => undefined);
    if (Date.now() - heard < PROBE_LOST_MS) return;
    if (live) events.subscription((live = false));
    heard = Date.now() - PROBE_LOST_MS + PROBE_MS; // one try per probe
    await Promise.resolve(cluster.sUnsubscribe(channel)).catch(() => undefined);
    await subscribe(channel).catch(() => undefined);
  };
  return {
    kind: 'cluster',
    get ready() {
      return cluster.isOpen;
    },
    send: (key, args) => cluster.sendCommand(key, false, args),
    probe: (key, args) => cluster.sendCommand(key, false, args),
    primaries: (args) =>
      Promise.all(
        cluster.masters.map(async (master) => {
          const node = (await cluster.nodeClient(master)) as RedisClientLike;
          return node.sendCommand(args);
        }),
      ),
    publish: (name, message) => cluster.sendCommand(name, false, ['SPUBLISH', name, message]),
    async start(name, onMessage) {
      if (!cluster.isOpen) await cluster.connect();
      listener = onMessage;
      await subscribe(name);
      channel = name;
      heard = Date.now();
      events.subscription(true);
      probing = setInterval(() => void probe(), PROBE_MS);
      probing.unref?.();
    },
    async close() {
      clearInterval(probing);
      if (channel) await Promise.resolve(cluster.sUnsubscribe(channel)).catch(() => undefined);
    },
  };
}

/** Sentinel: commands and pub/sub follow the primary the sentinels name. */
export function sentinelLink(sentinel: RedisSentinelLike, events: LinkEvents): RedisLink {
  sentinel.on('error', () => undefined); // a failover's errors answer the heartbeat, which decides
  sentinel.on('topology-change', () => events.ready());
  let channel: string | undefined;
  return {
    kind: 'sentinel',
    get ready() {
      return sentinel.isReady;
    },
    send: (_key, args) => sentinel.sendCommand(false, args),
    probe: (_key, args) => sentinel.sendCommand(false, args),
    primaries: async (args) => [await sentinel.sendCommand(false, args)],
    publish: (name, message) => sentinel.sendCommand(false, ['PUBLISH', name, message]),
    async start(name, listener) {
      if (!sentinel.isOpen) await sentinel.connect();
      await sentinel.subscribe(name, (message) => listener(message));
      channel = name;
      events.subscription(true);
    },
    async close() {
      if (channel) await sentinel.unsubscribe(channel).catch(() => undefined);
    },
  };
}
