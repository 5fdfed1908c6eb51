// Failover loses no completion (docs/reliability.md, "Replicas and failover"): on a real primary and two replicas
// under a real redis-sentinel, a claim and a completion count only once a replica acknowledged them. Replicas made to
// lag (SIGSTOP: they neither read nor acknowledge) put the kit in its degraded mode: callbacks answered 503, readiness
// still ready and saying so; a completion no replica took is kept and written again after the primary is killed and
// a replica promoted, so the service's retry, at either process, is a duplicate.
import { createSentinel } from 'redis';
import { MERCHANT_PATHS } from '../../src/core/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantHandler, type MerchantHandler } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { connectRedis, type AnyRedisClient, type RedisKit } from '../../src/server/redis/connect.js';
import { createSandbox, DEFAULT_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { redisCli, startRedisSentinel, type RedisSentinelProcesses } from '../support/redis-server.js';
import { callbackDeliveries, keptLines } from '../support/redis-callbacks.js';
import { eventually } from '../support/sandbox-fixture.js';

const { merchantId, privateKey } = DEFAULT_MERCHANT;

let sentinel: RedisSentinelProcesses;
let sandbox: Sandbox;
const clients: { close(): Promise<unknown> }[] = [];
const newClient = () => {
  const made = createSentinel({ name: sentinel.name, sentinelRootNodes: sentinel.sentinelRootNodes });
  clients.push({ close: () => made.close().catch(() => undefined) });
  return made as unknown as AnyRedisClient;
};

beforeAll(async () => {
  [sentinel, sandbox] = await Promise.all([startRedisSentinel({ replicas: 2 }), createSandbox({ log: () => undefined })]);
}, 60_000);

afterAll(async () => {
  for (const server of sentinel?.servers ?? []) server.resume();
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([sentinel?.close(), sandbox?.close()]);
});

/** Two kit processes on the Sentinel set; a gate holds the first one's onCallback for an order until it is opened. */
async function twoKits(gates: Map<string, Promise<void>> = new Map()) {
  const logs = [keptLines(), keptLines()];
  const handled: CallbackEvent[] = [];
  const redises: RedisKit[] = [];
  const handlers: MerchantHandler[] = [];
  for (const [index, log] of logs.entries()) {
    const redis = await connectRedis({ client: newClient(), merchantId, commandTimeoutMs: 1_000, recoveryHoldMs: 300, replicaTimeoutMs: 250, logger: log });
    redises.push(redis);
    handlers.push(
      createMerchantHandler({
        merchantId,
        privateKey,
        environment: { baseUrl: sandbox.url },
        logger: { warn: () => undefined, error: () => undefined },
        onCallback: async (event) => {
          if (index === 0) await gates.get(event.body.orderNo);
          handled.push(event);
        },
        ...redis.stores,
      }),
    );
  }
  // The service's retries of a callback answered 503, for 10 s at most.
  const { deliver, delivered } = callbackDeliveries(handlers, 10_000);
  const close = async () => {
    for (const handler of handlers) handler.close();
    await Promise.all(redises.map((redis) => redis.close()));
  };
  return { logs, handled, redises, handlers, deliver, delivered, close };
}

const orders = (prefix: string, count: number) => {
  const stamp = String(Date.now()).slice(-6);
  return Array.from({ length: count }, (_, index) => `${prefix}${stamp}${String(index).padStart(4, '0')}`);
};

describe('writes wait for the replica', () => {
  it('answers callbacks 503 while the replica lags, stays ready saying so, and handles them once when it acknowledges again', async () => {
    const kits = await twoKits();
    try {
      await eventually('the replicas acknowledge', () => kits.redises.every((redis) => redis.callbackStore.replicas === 'acknowledging'), 5_000);
      const before = orders('2615', 6);
      expect(await Promise.all(before.map(kits.delivered))).toEqual(before.map(() => 200));

      for (const replica of sentinel.replicas) replica.pause(); // replicas that neither read nor acknowledge
      const lagging = orders('2616', 6);
      const started = performance.now();
      const answers = [];
      for (const [index, orderNo] of lagging.entries()) answers.push(await kits.deliver(orderNo, index));
      const took = performance.now() - started;
      expect(answers).toEqual(lagging.map(() => 503));
      expect(kits.handled.filter((event) => lagging.includes(event.body.orderNo))).toEqual([]);
      // Each process waited for the replica once at most; then it refuses at once, until its beat sees one acknowledge.
      expect(took).toBeLessThan(2_000);
      const health = await kits.handlers[0]!(new Request(`http://shop.example${MERCHANT_PATHS.health}`));
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ready', redis: 'up', replicas: 'not-acknowledging' });

      for (const replica of sentinel.replicas) replica.resume();
      const resumed = performance.now();
      await eventually('a replica acknowledges', () => kits.redises.every((redis) => redis.callbackStore.replicas === 'acknowledging'), 5_000);
      console.log(`replica acknowledging again ${Math.round(performance.now() - resumed)} ms after it resumed`);
      expect(await Promise.all(lagging.map(kits.delivered))).toEqual(lagging.map(() => 200));
      expect(await Promise.all([...before, ...lagging].map((orderNo) => kits.delivered(orderNo, 1)))).toEqual([...before, ...lagging].map(() => 200));
      const counts = new Map<string, number>();
      for (const event of kits.handled) counts.set(event.body.orderNo, (counts.get(event.body.orderNo) ?? 0) + 1);
      expect(counts.size).toBe(12);
      expect([...counts.values()].every((count) => count === 1)).toBe(true);
      for (const log of kits.logs) {
        expect(log.kept.filter((line) => line.includes('no replica of Redis')).length).toBeLessThanOrEqual(1);
      }
      expect(kits.logs.flatMap((log) => log.kept).filter((line) => line.includes('no replica of Redis')).length).toBeGreaterThanOrEqual(1);
    } finally {
      for (const replica of sentinel.replicas) replica.resume();
      await kits.close();
    }
  }, 30_000);

  it('keeps a completion no replica took, and writes it on the promoted replica: the retry at either process is a duplicate', async () => {
    // The other replica follows the promoted one (the sentinel reconfigures it in the failover): writes are acknowledged.
    let open!: () => void;
    const [orderNo] = orders('2617', 1) as [string];
    const kits = await twoKits(new Map([[orderNo, new Promise<void>((resolve) => (open = resolve))]]));
    try {
      await eventually('the replicas acknowledge', () => kits.redises.every((redis) => redis.callbackStore.replicas === 'acknowledging'), 5_000);
      const first = kits.deliver(orderNo, 0); // claimed (the replica has the claim), onCallback held
      await new Promise((resolve) => setTimeout(resolve, 300)); // before the other process is asked
      await eventually('claimed', async () => (await kits.deliver(orderNo, 1)) === 503 && kits.redises[0]!.callbackStore.replicas === 'acknowledging');
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const replica of sentinel.replicas) replica.pause();
      // Cut the replicas' links: what the primary writes from now on never reaches it (what it sent before does).
      await redisCli(sentinel.primary.port, 'CLIENT', 'KILL', 'TYPE', 'replica');
      open(); // onCallback returns: the completion reaches the primary only
      expect(await first).toBe(200);

      const killed = performance.now();
      await sentinel.primary.kill(); // the completion dies with it
      for (const replica of sentinel.replicas) replica.resume();
      let primaryPort = 0;
      await eventually('a replica promoted', async () => {
        primaryPort = await sentinel.primaryPort();
        return sentinel.replicas.some((replica) => replica.port === primaryPort);
      }, 20_000);
      const promoted = performance.now();
      await eventually('both back, a replica acknowledging', () => kits.redises.every((redis) => redis.available && redis.callbackStore.replicas === 'acknowledging'), 20_000);
      console.log(`failover: promoted ${Math.round(promoted - killed)} ms after the primary was killed; both kits writing again ${Math.round(performance.now() - killed)} ms after`);

      // The service's retries, at either process, until acknowledged: a duplicate each, onCallback ran once.
      for (const index of [1, 0, 1]) await eventually(`retry at kit ${index}`, async () => (await kits.deliver(orderNo, index)) === 200, 10_000);
      expect(kits.handled.map((event) => event.body.orderNo)).toEqual([orderNo]);
      const stored = await redisCli(primaryPort, 'GET', `svc-checkout:${merchantId}:callback:outcome:${orderNo}:SUCCESS`);
      expect(stored.trim()).toBe('done');
    } finally {
      open();
      for (const replica of sentinel.replicas) replica.resume();
      await kits.close();
    }
  }, 40_000);

  it('notices a failover Redis never went away for (SENTINEL FAILOVER), says it once as a change of primary, and hands each callback over once', async () => {
    const kits = await twoKits();
    try {
      await eventually('the replicas acknowledge', () => kits.redises.every((redis) => redis.callbackStore.replicas === 'acknowledging'), 5_000);
      const before = orders('2618', 10);
      expect(await Promise.all(before.map(kits.delivered))).toEqual(before.map(() => 200));
      const from = await sentinel.primaryPort();
      await redisCli(sentinel.sentinelRootNodes[0]!.port, 'SENTINEL', 'FAILOVER', sentinel.name);
      await eventually('the primary changed', async () => (await sentinel.primaryPort()) !== from, 20_000);
      await eventually('both kits noticed', () => kits.logs.every((log) => log.kept.some((line) => line.includes('changed its primary'))), 20_000);
      await eventually('both back, a replica acknowledging', () => kits.redises.every((redis) => redis.available && redis.callbackStore.replicas === 'acknowledging'), 20_000);
      const after = orders('2619', 10);
      expect(await Promise.all([...before, ...after].map(kits.delivered))).toEqual([...before, ...after].map(() => 200));
      const counts = new Map<string, number>();
      for (const event of kits.handled) counts.set(event.body.orderNo, (counts.get(event.body.orderNo) ?? 0) + 1);
      expect(counts.size).toBe(20);
      expect([...counts.values()].every((count) => count === 1)).toBe(true);
      for (const log of kits.logs) {
        expect(log.kept.filter((line) => line.includes('changed its primary')), log.kept.join('\n')).toHaveLength(1);
        expect(log.kept.filter((line) => line.includes('is back:')), log.kept.join('\n')).toHaveLength(1);
      }
    } finally {
      await kits.close();
    }
  }, 60_000);
});
