// Failover loses no completion, on a real Redis Cluster of three masters with a replica each: a completion whose
// shard's replica did not acknowledge it (SIGSTOP) is kept; its master is killed and the replica promoted by the
// cluster itself; the kit writes the completion on the promoted master, and the service's retry, at either process,
// is a duplicate, and the status bus's subscription follows its channel to the promoted master. Other shards keep
// handling callbacks meanwhile.
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantHandler, type MerchantHandler } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { type StatusUpdate } from '../../src/server/stores/status-bus/port.js';
import { connectRedis, type AnyRedisClient, type RedisKit } from '../../src/server/redis/connect.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { redisCli, startRedisCluster, type RedisClusterProcesses } from '../support/redis-server.js';
import { settledCallback } from '../support/redis-callbacks.js';
import { eventually } from '../support/sandbox-fixture.js';

const { merchantId, privateKey } = DEFAULT_MERCHANT;

let cluster: RedisClusterProcesses;
const clients: { close(): Promise<unknown> }[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster({ replicas: 1 });
}, 60_000);

afterAll(async () => {
  for (const node of cluster?.nodes ?? []) node.resume();
  await Promise.all(clients.map((client) => client.close()));
  await cluster?.close();
});

describe('on a Redis Cluster with a replica per master, a master killed after a completion its replica did not take', () => {
  it('writes the completion on the promoted replica: the retry at either process is a duplicate, onCallback ran once', async () => {
    const stamp = String(Date.now()).slice(-6);
    // An order whose outcome lives on the master of the status channel: its failover moves both.
    const channel = await cluster.nodesOf(`svc-checkout:${merchantId}:status`);
    const keyOf = (order: string) => `svc-checkout:${merchantId}:callback:outcome:${order}:SUCCESS`;
    let serial = 0;
    while ((await cluster.nodesOf(keyOf(`2618${stamp}${String(serial).padStart(4, '0')}`))).master !== channel.master) serial += 1;
    const orderNo = `2618${stamp}${String(serial).padStart(4, '0')}`;
    const key = keyOf(orderNo);
    const { master, replicas } = await cluster.nodesOf(key);
    const replica = replicas[0]!;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const handled: CallbackEvent[] = [];
    const redises: RedisKit[] = [];
    const handlers: MerchantHandler[] = [];
    for (let index = 0; index < 2; index++) {
      const made = createCluster({ rootNodes: cluster.rootNodes });
      clients.push({ close: () => made.close().catch(() => undefined) });
      const redis = await connectRedis({ client: made as unknown as AnyRedisClient, merchantId, commandTimeoutMs: 1_000, recoveryHoldMs: 300, replicaTimeoutMs: 250, logger: { warn: () => undefined, error: () => undefined } });
      redises.push(redis);
      handlers.push(
        createMerchantHandler({
          merchantId,
          privateKey,
          environment: { baseUrl: 'http://127.0.0.1:9' },
          logger: { warn: () => undefined, error: () => undefined },
          onCallback: async (event) => {
            if (index === 0 && event.body.orderNo === orderNo) await gate; // the first process holds it
            handled.push(event);
          },
          ...redis.stores,
        }),
      );
    }
    const deliver = async (order: string, index: number) => (await handlers[index % 2]!(await settledCallback(order))).status;
    try {
      expect(redises.every((redis) => redis.callbackStore.replicas === 'acknowledging')).toBe(true);
      const first = deliver(orderNo, 0); // claimed, its replica has the claim; onCallback held
      await new Promise((resolve) => setTimeout(resolve, 300)); // before the other process is asked
      await eventually('claimed', async () => (await deliver(orderNo, 1)) === 503);
      await new Promise((resolve) => setTimeout(resolve, 200));
      replica.pause();
      // Cut the replica's link: what the primary writes from now on never reaches it (what it sent before does).
      await redisCli(master.port, 'CLIENT', 'KILL', 'TYPE', 'replica');
      open(); // the completion reaches the master only
      expect(await first).toBe(200);

      const killed = performance.now();
      await master.kill();
      replica.resume();
      await eventually('the replica promoted', async () => /role:master/.test(await redisCli(replica.port, 'INFO', 'replication')), 20_000);
      const promoted = performance.now();
      await master.start(); // rejoins as the promoted one's replica (its nodes.conf)
      await eventually('both writing again', () => redises.every((redis) => redis.available && redis.callbackStore.replicas === 'acknowledging'), 20_000);
      await eventually('the completion written on the promoted master', async () => (await redisCli(replica.port, 'GET', key)).trim() === 'done', 20_000);
      console.log(`cluster failover: promoted ${Math.round(promoted - killed)} ms after the master was killed; completion on it ${Math.round(performance.now() - killed)} ms after`);

      // The status bus's sharded subscription followed the channel to the promoted master: one process publishes,
      // the other hears it.
      const heard: StatusUpdate[] = [];
      redises[1]!.statusBus.subscribe({ update: (update) => heard.push(update) });
      const update: StatusUpdate = { orderNo, reference: `r-${orderNo}`, status: 'SUCCESS', source: 'callback', at: Date.now() };
      await eventually('the other process hears a status update', async () => {
        await redises[0]!.statusBus.publish(update);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return heard.length > 0;
      }, 15_000);
      await eventually('both buses live', () => redises.every((redis) => redis.statusBus.live), 10_000);

      for (const index of [1, 0, 1]) await eventually(`retry at kit ${index}`, async () => (await deliver(orderNo, index)) === 200, 10_000);
      expect(handled.filter((event) => event.body.orderNo === orderNo)).toHaveLength(1);
      // Other orders, on every shard, are handled once each.
      const others = Array.from({ length: 30 }, (_, index) => `2619${stamp}${String(index).padStart(4, '0')}`);
      for (const other of others) await eventually(`order ${other}`, async () => (await deliver(other, 0)) === 200, 5_000);
      for (const other of others) expect(await deliver(other, 1)).toBe(200);
      expect(handled).toHaveLength(31);
    } finally {
      open();
      replica.resume();
      for (const handler of handlers) handler.close();
      await Promise.all(redises.map((redis) => redis.close()));
    }
  }, 40_000);
});
