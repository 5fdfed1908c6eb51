// The faults `npm run load -- --fault <name>` puts a run of kit processes through (scripts/load.mjs), each at
// --fault-at seconds into the run, and what every run then prints: orders whose payment never reached the shop's
// onCallback (lost), reached it more than once (doubled), and the 99th percentile of the time from the payment to
// the payer seeing it on the status stream, and to the shop's hook.
import { redisCli, startRedisCluster, startRedisSentinel, startRedisServer } from './redis-processes.mjs';
import { startTcpProxy } from './tcp-proxy.mjs';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reconciliation in a run where every callback is dropped: each order asked about after 5 s, sweeps every second. */
export const DROPPED_RECONCILE = { quietSeconds: 5, sweepSeconds: 1, queriesPerSecond: 400 };

/**
 * Each fault: `redis` the Redis it runs on, `kitEnv` more of the kit processes' environment, `inject` what it does
 * mid-run (given the run's handles), `before` what it sets up before the checkouts start.
 */
export const FAULTS = {
  'redis-pause': {
    what: 'Redis frozen (SIGSTOP) for 20 s, then resumed',
    redis: 'server',
    async inject({ redis, say }) {
      say('freezing Redis for 20 s (SIGSTOP)');
      redis.pause();
      await pause(20_000);
      redis.resume();
      say('Redis resumed (SIGCONT)');
    },
  },
  'redis-restart': {
    what: 'Redis killed (SIGKILL) and started again 3 s later from its append-only file',
    redis: 'server',
    async inject({ redis, say }) {
      say('killing Redis (SIGKILL)');
      await redis.kill();
      await pause(3_000);
      await redis.start();
      say('Redis started again from its append-only file');
    },
  },
  'kill-kit': {
    what: 'one kit process killed (SIGKILL) while it serves payers and holds claims',
    redis: 'server',
    async inject({ kits, say }) {
      const victim = kits.at(-1);
      say(`killing kit ${victim.name} (SIGKILL)`);
      victim.child.kill('SIGKILL');
    },
  },
  cluster: {
    what: 'the kit processes on a three-master Redis Cluster (sharded pub/sub for status updates)',
    redis: 'cluster',
    async inject() {},
  },
  'sentinel-failover': {
    what: 'a primary and two replicas under redis-sentinel; the replicas cut off for 1 s, the primary killed (SIGKILL), started again 3 s after the promotion',
    redis: 'sentinel',
    async inject({ redis, say }) {
      // What the primary writes in its last second never reaches a replica: the kit must have kept it.
      for (const replica of redis.replicas) replica.pause();
      await redisCli(redis.primary.port, 'CLIENT', 'KILL', 'TYPE', 'replica');
      await pause(1_000);
      say('replicas cut off for 1 s; killing the primary (SIGKILL)');
      const killed = Date.now();
      await redis.primary.kill();
      for (const replica of redis.replicas) replica.resume();
      let promoted = 0;
      while (!redis.replicas.some((replica) => replica.port === promoted)) {
        await pause(100);
        promoted = await redis.primaryPort().catch(() => 0);
      }
      say(`a replica promoted ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill`);
      await pause(3_000);
      await redis.primary.start();
      say('the old primary started again (the sentinel makes it a replica)');
    },
  },
  'lagging-replica': {
    what: 'a primary and two replicas under redis-sentinel; both replicas frozen (SIGSTOP) for 10 s: no write acknowledged',
    redis: 'sentinel',
    async inject({ redis, say }) {
      say('freezing both replicas for 10 s (SIGSTOP)');
      for (const replica of redis.replicas) replica.pause();
      await pause(10_000);
      for (const replica of redis.replicas) replica.resume();
      say('replicas resumed (SIGCONT)');
    },
  },
  partition: {
    what: 'one kit process cut off from Redis for 15 s (a TCP proxy between them stops forwarding), the other not',
    redis: 'proxied',
    async inject({ redis, say }) {
      say('cutting kit B off from Redis for 15 s');
      redis.proxy.cut();
      await pause(15_000);
      redis.proxy.heal();
      say('kit B reaches Redis again');
    },
  },
  'lost-answers': {
    what: "the service's answers to the next 40 calls lost after it acted (creates among them), and the next 60 callbacks dropped",
    redis: 'server',
    kitEnv: {
      RECONCILE_QUIET_S: String(DROPPED_RECONCILE.quietSeconds),
      RECONCILE_SWEEP_S: String(DROPPED_RECONCILE.sweepSeconds),
      RECONCILE_QPS: String(DROPPED_RECONCILE.queriesPerSecond),
    },
    async inject({ control, say }) {
      await control((sandbox) => sandbox.addFault({ kind: 'lost', count: 40, delayMs: 100 }));
      await control((sandbox) => sandbox.addDeliveryFault({ kind: 'omit', count: 60 }));
      say("the next 40 answers of the service lost after it acted, the next 60 callbacks dropped");
    },
  },
  'cluster-failover': {
    what: 'three masters with a replica each; one master cut off from its replica for 1 s and killed (SIGKILL), started again 3 s after the promotion',
    redis: 'cluster-replicas',
    async inject({ redis, say }) {
      const master = redis.nodes.find((node) => node.port === redis.firstMasterPort);
      const replica = redis.nodes.find((node) => node.port === redis.firstReplicaPort);
      replica.pause();
      await redisCli(master.port, 'CLIENT', 'KILL', 'TYPE', 'replica');
      await pause(1_000);
      say(`replica ${replica.port} cut off for 1 s; killing master ${master.port} (SIGKILL)`);
      const killed = Date.now();
      await master.kill();
      replica.resume();
      while (!/role:master/.test(await redisCli(replica.port, 'INFO', 'replication').catch(() => ''))) await pause(100);
      say(`its replica promoted ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill`);
      await pause(3_000);
      await master.start();
      say('the old master started again (it rejoins as a replica)');
    },
  },
  'drop-callbacks': {
    what: 'every callback dropped (the service counts it delivered and never retries): reconciliation alone',
    redis: 'server',
    kitEnv: {
      RECONCILE_QUIET_S: String(DROPPED_RECONCILE.quietSeconds),
      RECONCILE_SWEEP_S: String(DROPPED_RECONCILE.sweepSeconds),
      RECONCILE_QPS: String(DROPPED_RECONCILE.queriesPerSecond),
    },
    async before({ control, checkouts }) {
      await control((sandbox) => sandbox.addDeliveryFault({ kind: 'omit', count: checkouts * 2 }));
    },
    async inject() {},
  },
};

/**
 * The Redis a fault's run uses: a server with an append-only file, a cluster (with replicas or without), a primary and
 * two replicas under Sentinel, or a server that the last kit process reaches through a TCP proxy. Its processes are
 * `track`ed. `envFor(index)` is what one kit process's environment has of its own.
 */
export async function startFaultRedis(fault, track) {
  const kind = FAULTS[fault].redis;
  if (kind === 'cluster' || kind === 'cluster-replicas') {
    const cluster = await startRedisCluster({ replicas: kind === 'cluster' ? 0 : 1 });
    for (const node of cluster.nodes) track(node.child);
    if (kind === 'cluster-replicas') {
      const { master, replicas } = await cluster.nodesOf('{svc}');
      Object.assign(cluster, { firstMasterPort: master.port, firstReplicaPort: replicas[0].port });
    }
    return { env: { REDIS_CLUSTER: cluster.rootNodes.map((node) => node.url).join(',') }, handle: cluster, close: () => cluster.close() };
  }
  if (kind === 'sentinel') {
    const sentinel = await startRedisSentinel({ replicas: 2 });
    for (const server of sentinel.servers) track(server.child);
    const [root] = sentinel.sentinelRootNodes;
    return { env: { REDIS_SENTINEL: `${sentinel.name}@${root.host}:${root.port}` }, handle: sentinel, close: () => sentinel.close() };
  }
  const server = await startRedisServer();
  track(server.child);
  if (kind === 'proxied') {
    const proxy = await startTcpProxy({ port: server.port });
    return {
      env: { REDIS_URL: server.url },
      envFor: (index, count) => (index === count - 1 ? { REDIS_URL: proxy.url } : {}),
      handle: { server, proxy },
      close: async () => {
        await proxy.close();
        await server.close();
      },
    };
  }
  return { env: { REDIS_URL: server.url }, handle: server, close: () => server.close() };
}

const percentile = (list, q) => {
  if (list.length === 0) return Number.NaN;
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

/**
 * Lost, doubled and the two latencies, from the checkouts (each with its order's final status, `paidAt` and
 * `payerSawAt` in epoch ms) and every outcome the kits' onCallback took (`orderNo`, `status`, `at`).
 */
export function faultFigures(checkouts, handed) {
  const byOrder = new Map();
  for (const event of handed) byOrder.set(event.orderNo, [...(byOrder.get(event.orderNo) ?? []), event]);
  const settled = checkouts.filter((item) => item.orderNo && item.status && item.status !== 'PENDING');
  const lost = settled.filter((item) => !(byOrder.get(item.orderNo) ?? []).some((event) => event.status === item.status));
  const doubled = settled.filter((item) => (byOrder.get(item.orderNo) ?? []).length > 1);
  const paid = settled.filter((item) => item.paidAt !== undefined);
  const toPayer = paid.filter((item) => item.payerSawAt !== undefined).map((item) => item.payerSawAt - item.paidAt);
  const toShop = paid.flatMap((item) => (byOrder.get(item.orderNo) ?? []).slice(0, 1).map((event) => event.at - item.paidAt));
  const sources = new Map();
  for (const event of handed) sources.set(event.source, (sources.get(event.source) ?? 0) + 1);
  return {
    settled: settled.length,
    lost: lost.length,
    doubled: doubled.length,
    payerP50: percentile(toPayer, 0.5),
    shopP50: percentile(toShop, 0.5),
    payerP99: percentile(toPayer, 0.99),
    payerMax: Math.max(...toPayer),
    shopP99: percentile(toShop, 0.99),
    shopMax: Math.max(...toShop),
    measured: { payer: toPayer.length, shop: toShop.length },
    sources,
    firstLost: lost[0],
  };
}
