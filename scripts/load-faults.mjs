// The faults `npm run load -- --fault <name>` puts a run of kit processes through (scripts/load.mjs), each at
// --fault-at seconds into the run, and what every run then prints: orders whose payment never reached the shop's
// onCallback (lost), reached it more than once (doubled), and the 99th percentile of the time from the payment to
// the payer seeing it on the status stream, and to the shop's hook.
import { startRedisCluster, startRedisServer } from './redis-processes.mjs';

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

/** The Redis a fault's run uses: a server with an append-only file, or a cluster. Its processes are `track`ed. */
export async function startFaultRedis(fault, track) {
  if (FAULTS[fault].redis === 'cluster') {
    const cluster = await startRedisCluster();
    for (const node of cluster.nodes) track(node.child);
    return { env: { REDIS_CLUSTER: cluster.rootNodes.map((node) => node.url).join(',') }, handle: cluster, close: () => cluster.close() };
  }
  const server = await startRedisServer();
  track(server.child);
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
