// The Redis adapter on a real Redis Cluster (three masters, `redis-cli --cluster create`) and on a real primary and
// replica under redis-sentinel whose primary is killed mid-run, each started once for its suite.
import { createCluster, createSentinel } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantHandler, type MerchantHandler } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { type StatusUpdate } from '../../src/server/stores/status-bus/port.js';
import { connectRedis, RedisConnectError, type AnyRedisClient, type RedisKit } from '../../src/server/redis/connect.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { startRedisCluster, startRedisSentinel, type RedisClusterProcesses, type RedisSentinelProcesses } from '../support/redis-server.js';
import { callbackDeliveries, keptLines, settledCallback } from '../support/redis-callbacks.js';
import { eventually } from '../support/sandbox-fixture.js';

const { merchantId, privateKey } = DEFAULT_MERCHANT;

/** Two kit processes' worth of handlers, each on its own client of the same Redis, each with its lines kept (`logs`). */
async function twoKits(client: () => AnyRedisClient, options: Parameters<typeof connectRedis>[0] = {}) {
  const logs = [keptLines(), keptLines()];
  const handled: CallbackEvent[] = [];
  const redises: RedisKit[] = [];
  const handlers: MerchantHandler[] = [];
  for (const log of logs) {
    const redis = await connectRedis({ client: client(), merchantId, logger: log, ...options });
    redises.push(redis);
    handlers.push(
      createMerchantHandler({
        merchantId,
        privateKey,
        environment: { baseUrl: 'http://127.0.0.1:9' },
        logger: { warn: () => undefined, error: () => undefined },
        onCallback: (event) => {
          handled.push(event);
        },
        ...redis.stores,
      }),
    );
  }
  return { logs, handled, redises, handlers };
}

describe('on a Redis Cluster of three masters', () => {
  let cluster: RedisClusterProcesses;
  const clients: { close(): Promise<unknown> }[] = [];
  const newClient = () => {
    const made = createCluster({ rootNodes: cluster.rootNodes });
    clients.push({ close: () => made.close().catch(() => undefined) });
    return made as unknown as AnyRedisClient;
  };

  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await cluster?.close();
  });

  it('refuses a plain client at one node, saying to give a cluster client', async () => {
    const failure = await connectRedis({ url: cluster.nodes[0]!.url, merchantId, logger: keptLines() }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RedisConnectError);
    expect((failure as Error).message).toMatch(/is a node of a cluster: most keys live on other nodes \(MOVED\)\. Give connectRedis a cluster client/);
  });

  it('claims, counts and reconciles on every node with a cluster client: keys of one script in one slot, no MOVED', async () => {
    const { handled, redises, handlers } = await twoKits(newClient);
    try {
      const [one, two] = redises as [RedisKit, RedisKit];
      // 60 orders' outcomes spread over the three masters' slots, delivered to both processes at once.
      const orderNos = Array.from({ length: 60 }, (_, index) => `2611${String(Date.now()).slice(-6)}${String(index).padStart(4, '0')}`);
      const answers = await Promise.all(orderNos.flatMap((orderNo) => handlers.map(async (handler) => (await handler(await settledCallback(orderNo))).status)));
      expect(answers.every((status) => status === 200 || status === 503)).toBe(true);
      await Promise.all(orderNos.map(async (orderNo) => expect((await handlers[1]!(await settledCallback(orderNo))).status).toBe(200)));
      expect(new Set(handled.map((event) => event.body.orderNo)).size).toBe(60);
      expect(handled).toHaveLength(60);

      const hits = [];
      for (let index = 0; index < 3; index++) hits.push((await (index % 2 ? two : one).throttleStore.hit(`resendOtp:${orderNos[index]}`, 2, 5_000)).allowed);
      expect(hits).toEqual([true, true, true]);
      expect((await one.throttleStore.hit(`resendOtp:${orderNos[0]}`, 1, 5_000)).allowed).toBe(false);

      const order = { orderNo: orderNos[0]!, reference: 'r', country: 'EG', amount: { total: 1, currency: 'EGP' }, deadline: Date.now() + 60_000 };
      expect(await one.reconciliationStore.track(order, Date.now() - 1)).toBe(true);
      expect(await two.reconciliationStore.take(Date.now(), 10, Date.now() + 60_000)).toEqual([order]);
      expect(await one.reconciliationStore.take(Date.now(), 10, Date.now() + 60_000)).toEqual([]);
      await two.reconciliationStore.forget(order.orderNo);
      expect(one.available && two.available).toBe(true);
    } finally {
      for (const handler of handlers) handler.close();
      await Promise.all(redises.map((redis) => redis.close()));
    }
  });

  it('fans status updates out by sharded pub/sub: one process publishes, the other hears it once', async () => {
    const one = await connectRedis({ client: newClient(), merchantId, logger: keptLines() });
    const two = await connectRedis({ client: newClient(), merchantId, logger: keptLines() });
    try {
      const heard: StatusUpdate[] = [];
      two.statusBus.subscribe({ update: (update) => heard.push(update) });
      expect(two.statusBus.live).toBe(true);
      const update: StatusUpdate = { orderNo: '26112200000042', reference: 'r-42', status: 'SUCCESS', source: 'callback', at: Date.now() };
      await one.statusBus.publish(update);
      await eventually('the other process heard it', () => heard.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toEqual([update]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('on a primary and a replica under redis-sentinel, the primary killed mid-run', () => {
  let sentinel: RedisSentinelProcesses;
  const clients: { close(): Promise<unknown> }[] = [];
  const newClient = () => {
    const made = createSentinel({ name: sentinel.name, sentinelRootNodes: sentinel.sentinelRootNodes });
    clients.push({ close: () => made.close().catch(() => undefined) });
    return made as unknown as AnyRedisClient;
  };

  beforeAll(async () => {
    sentinel = await startRedisSentinel();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await sentinel?.close();
  });

  it('hands each callback over once before, during and after the failover, and says the outage once', async () => {
    const { logs, handled, redises, handlers } = await twoKits(newClient, { commandTimeoutMs: 1_000, recoveryHoldMs: 200 });
    // As the service does: a callback answered 503 comes again (for 15 s at most, a failover in between).
    const { deliver, delivered } = callbackDeliveries(handlers, 15_000);
    try {
      const stamp = String(Date.now()).slice(-6);
      const before = Array.from({ length: 20 }, (_, index) => `2612${stamp}${String(index).padStart(4, '0')}`);
      expect(await Promise.all(before.map(delivered))).toEqual(before.map(() => 200));
      await new Promise((resolve) => setTimeout(resolve, 200)); // the replica has them

      const primaryPort = await sentinel.primaryPort();
      expect(primaryPort).toBe(sentinel.primary.port);
      await sentinel.primary.kill();
      // During the failover: answered 503 (the service sends them again), never handed over twice.
      const during = Array.from({ length: 10 }, (_, index) => `2613${stamp}${String(index).padStart(4, '0')}`);
      const duringAnswers = await Promise.all(during.map(deliver));
      expect(duringAnswers.every((status) => status === 200 || status === 503)).toBe(true);
      await eventually('the replica promoted', async () => (await sentinel.primaryPort()) === sentinel.replica.port, 20_000);
      // Both kits back on the promoted replica before the old primary returns: a kit whose client reconnected to the
      // old primary, started again and still a primary for a moment, would rightly count its demotion as a second
      // switch (what it wrote there is lost with the demotion, and written again).
      await eventually('both back', () => redises.every((redis) => redis.available), 20_000);
      // The promoted replica has no replica of its own: callbacks wait (answered 503) until one acknowledges. The old
      // primary, started again, is made its replica by the sentinel.
      await sentinel.primary.start();
      await eventually('a replica acknowledges', () => redises.every((redis) => redis.callbackStore.replicas === 'acknowledging'), 20_000);

      // The service's retries: the ones handled before are duplicates; the rest are handled now, once.
      for (const orderNo of [...before, ...during]) expect(await delivered(orderNo, 1)).toBe(200);
      const after = Array.from({ length: 10 }, (_, index) => `2614${stamp}${String(index).padStart(4, '0')}`);
      expect(await Promise.all(after.map(delivered))).toEqual(after.map(() => 200));
      const counts = new Map<string, number>();
      for (const event of handled) counts.set(event.body.orderNo, (counts.get(event.body.orderNo) ?? 0) + 1);
      expect(counts.size).toBe(40);
      expect([...counts.values()].every((count) => count === 1)).toBe(true);

      for (const log of logs) {
        expect(log.kept.filter((line) => line.includes('is unreachable'))).toHaveLength(1);
        expect(log.kept.filter((line) => line.includes('is back:'))).toHaveLength(1);
        expect(log.kept.filter((line) => line.includes("without the kit's data"))).toEqual([]);
      }
      await expect(redises[0]!.callbackStore.claim(`outcome:${before[0]}:SUCCESS`)).resolves.toBe('done');
    } catch (error) {
      throw Object.assign(error as Error, { message: `${(error as Error).message}\nlogs: ${logs.map((log) => log.kept.join(' | ')).join('\n')}` });
    } finally {
      for (const handler of handlers) handler.close();
      await Promise.all(redises.map((redis) => redis.close()));
    }
  }, 90_000);
});
