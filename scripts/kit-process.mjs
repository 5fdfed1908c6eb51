// One merchant kit process as a merchant runs several: createMerchantHandler from dist/ under node:http, its
// callbacks, throttles, orders to reconcile and status updates shared through Redis (svc-checkout/server/redis).
// For the Redis suites, `npm run load -- --kits 2 --redis` and the bench. Configured by its environment:
//   SANDBOX_URL        the service (the sandbox)                         required
//   REDIS_URL          Redis; without it (and the two below), the kit keeps its state in memory
//   REDIS_CLUSTER      a Redis Cluster instead: its nodes' URLs, comma-separated (a createCluster client)
//   REDIS_SENTINEL     a primary under Sentinel instead: name@host:port of a sentinel (a createSentinel client)
//   REDIS_ACCEPT_DATA_LOSS=1   start even though Redis may forget handled callbacks (acceptDataLoss)
//   REDIS_LEASE_MS     the process lease (leaseMs): how long its claims outlive it
//   CALLBACK_URL       the kit's callbackUrl option
//   STREAM_POLL_MS     streams.pollIntervalMs
//   CALLBACK_DELAY_MS  onCallback takes this long (a merchant's slow database)
//   RECONCILE_QUIET_S, RECONCILE_SWEEP_S, RECONCILE_QPS   reconcile.quietSeconds, sweepSeconds, queriesPerSecond
//   RETURN_URL_ORIGINS returnUrlOrigins, comma-separated
//   LIMITS             limits, as JSON, over this script's own (which turn off those a single client would meet)
//   SERVICE_CONCURRENCY calls to the service in flight at once, at most (default 128; the rest wait their turn)
//   MERCHANT_ID, PRIVATE_KEY   default: the sandbox's test merchant
// It prints one line per fact on stdout: `listening <url>`, `callback <notifyId> <orderNo> <status> <source> <ms>`
// (each outcome onCallback handled, with where it came from and when, epoch ms), `query` (a status query sent to
// the service), `log <warn|error> <text>`, and on SIGUSR2 `memory <rss> <heapUsed>` in bytes (after a full
// collection, when started with --expose-gc); on SIGTERM it stops and exits 0. A kit that cannot reach Redis at
// start prints the error on stderr and exits 1.
import { createServer } from 'node:http';
import { DEFAULT_MERCHANT } from '../dist/sandbox/index.js';
import { createMerchantHandler, SERVICE_PATHS, toNodeListener } from '../dist/server/index.js';

const env = process.env;
const say = (line) => process.stdout.write(`${line}\n`);
const logger = {
  warn: (text) => say(`log warn ${text.replace(/\n/g, ' ')}`),
  error: (text) => say(`log error ${text.replace(/\n/g, ' ')}`),
};
const merchantId = env.MERCHANT_ID ?? DEFAULT_MERCHANT.merchantId;

/** The node-redis client the environment names, when it is a cluster or Sentinel (connectRedis makes a plain one from a URL). */
async function redisClient() {
  if (env.REDIS_CLUSTER) {
    const { createCluster } = await import('redis');
    return createCluster({ rootNodes: env.REDIS_CLUSTER.split(',').map((url) => ({ url })) });
  }
  if (env.REDIS_SENTINEL) {
    const { createSentinel } = await import('redis');
    const [name, address] = env.REDIS_SENTINEL.split('@');
    const [host, port] = address.split(':');
    return createSentinel({ name, sentinelRootNodes: [{ host, port: Number(port) }] });
  }
  return undefined;
}

let redis;
if (env.REDIS_URL || env.REDIS_CLUSTER || env.REDIS_SENTINEL) {
  const { connectRedis } = await import('../dist/server/redis.js');
  try {
    const client = await redisClient();
    redis = await connectRedis({
      ...(client ? { client } : { url: env.REDIS_URL }),
      merchantId,
      logger,
      connectTimeoutMs: 5_000,
      acceptDataLoss: env.REDIS_ACCEPT_DATA_LOSS === '1',
      ...(env.REDIS_LEASE_MS ? { leaseMs: Number(env.REDIS_LEASE_MS) } : {}),
    });
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

const seconds = (name) => (env[name] ? Number(env[name]) : undefined);
const reconcile = Object.fromEntries(
  Object.entries({ quietSeconds: seconds('RECONCILE_QUIET_S'), sweepSeconds: seconds('RECONCILE_SWEEP_S'), queriesPerSecond: seconds('RECONCILE_QPS') }).filter(
    ([, value]) => value !== undefined,
  ),
);

const delayMs = Number(env.CALLBACK_DELAY_MS ?? 0);

// Node's fetch opens a connection for every call in flight: a burst of thousands would overflow the service's
// accept queue (connect timeouts). A merchant's server keeps a bounded pool; this is one.
const limit = Number(env.SERVICE_CONCURRENCY ?? 128);
let inFlight = 0;
const queue = [];
async function pooled(call) {
  if (inFlight >= limit) await new Promise((resolve) => queue.push(resolve));
  inFlight += 1;
  try {
    return await call();
  } finally {
    inFlight -= 1;
    queue.shift()?.();
  }
}
const handler = createMerchantHandler({
  merchantId,
  privateKey: env.PRIVATE_KEY ?? DEFAULT_MERCHANT.privateKey,
  environment: { baseUrl: env.SANDBOX_URL },
  callbackUrl: env.CALLBACK_URL,
  returnUrlOrigins: env.RETURN_URL_ORIGINS ? env.RETURN_URL_ORIGINS.split(',') : [],
  // Every payer of a test or a load run comes from 127.0.0.1.
  limits: {
    createsPerClient: false,
    messagesPerEmail: false,
    messagesPerPhone: false,
    statusPerClient: false,
    streamsPerClient: false,
    streams: { limit: 20_000 },
    ...(env.LIMITS ? JSON.parse(env.LIMITS) : {}),
  },
  streams: env.STREAM_POLL_MS ? { pollIntervalMs: Number(env.STREAM_POLL_MS) } : {},
  logger,
  fetch: (input, init) => {
    if (String(input).endsWith(SERVICE_PATHS.status)) say('query');
    return pooled(async () => {
      const response = await fetch(input, init);
      // The connection is free once the body is read.
      const body = await response.arrayBuffer();
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    });
  },
  async onCallback(event) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    say(`callback ${event.notifyId} ${event.body.orderNo} ${event.body.status} ${event.source} ${Date.now()}`);
  },
  reconcile,
  ...(redis ? redis.stores : {}),
});

const server = createServer(toNodeListener(handler));
// Payers of a load run connect by the thousand in the same instant: a backlog for them all (capped at somaxconn).
server.listen(0, '127.0.0.1', 4096, () => say(`listening http://127.0.0.1:${server.address().port}`));
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  say(`memory ${rss} ${heapUsed}`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(async () => {
    await redis?.close();
    process.exit(0);
  });
});
