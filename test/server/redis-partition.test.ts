// A partitioned process cannot cause a double (docs/reliability.md, "A process cut off from Redis"): one kit process
// is cut off from a real redis-server for 15 s (a TCP proxy between them that stops forwarding: a real partition
// cannot be made on demand) while outcomes it handled wait to be written, and the other keeps serving. The other
// never takes those outcomes over (their holder's process lease holds), the cut-off one answers every callback 503,
// and once it heals it writes what it handled: each outcome reached onCallback once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchantHandler, type MerchantHandler } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { connectRedis, type RedisKit } from '../../src/server/redis/connect.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { startTcpProxy, type TcpProxy } from '../../scripts/tcp-proxy.mjs';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { settledCallback } from '../support/redis-callbacks.js';
import { eventually } from '../support/sandbox-fixture.js';

const { merchantId, privateKey } = DEFAULT_MERCHANT;
const quiet = { warn: () => undefined, error: () => undefined };

let redis: TestRedis;
let proxy: TcpProxy;

beforeAll(async () => {
  redis = await startRedis();
  proxy = await startTcpProxy({ port: redis.port });
});

afterAll(async () => {
  await proxy?.close();
  await redis?.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Kit A reaches Redis through the proxy, kit B directly; A's onCallback waits for `gate` on the orders held. */
async function kits(keyPrefix: string, leaseMs: number | undefined, held: Set<string>, gate: Promise<void>) {
  const handled: { orderNo: string; kit: string }[] = [];
  const redises: RedisKit[] = [];
  const handlers: MerchantHandler[] = [];
  for (const [name, url] of [['A', proxy.url], ['B', redis.url]] as const) {
    const made = await connectRedis({ url, keyPrefix, commandTimeoutMs: 1_000, recoveryHoldMs: 300, ...(leaseMs ? { leaseMs } : {}), logger: quiet });
    redises.push(made);
    handlers.push(
      createMerchantHandler({
        merchantId,
        privateKey,
        environment: { baseUrl: 'http://127.0.0.1:9' },
        logger: quiet,
        onCallback: async (event: CallbackEvent) => {
          if (name === 'A' && held.has(event.body.orderNo)) await gate;
          handled.push({ orderNo: event.body.orderNo, kit: name });
        },
        ...made.stores,
      }),
    );
  }
  return { handled, redises, handlers };
}

/**
 * The run: A holds five outcomes in onCallback, is cut off, finishes them (unwritten), and for 15 s the service sends
 * those five again to B, and new ones to both, once a second; then A heals and the retries go on until each is
 * acknowledged. Answers what each kit answered, and how many times each order reached onCallback.
 */
async function partitionRun(leaseMs?: number) {
  const stamp = String(Date.now()).slice(-6);
  const heldOrders = Array.from({ length: 5 }, (_, index) => `2620${stamp}${String(index).padStart(4, '0')}`);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const { handled, redises, handlers } = await kits(`cut${stamp}${leaseMs ?? ''}:`, leaseMs, new Set(heldOrders), gate);
  const [a, b] = handlers as [MerchantHandler, MerchantHandler];
  const deliver = async (handler: MerchantHandler, orderNo: string) => (await handler(await settledCallback(orderNo))).status;
  try {
    const first = heldOrders.map((orderNo) => deliver(a, orderNo));
    await pause(500); // A claimed them, and runs onCallback
    await eventually('A holds them', async () => (await Promise.all(heldOrders.map((orderNo) => deliver(b, orderNo)))).every((status) => status === 503));
    proxy.cut();
    const cutAt = performance.now();
    open(); // A's onCallback returns: the completions cannot reach Redis
    expect(await Promise.all(first)).toEqual(heldOrders.map(() => 200));

    const answers = { aDuringCut: [] as number[], bRetries: [] as number[], bNew: [] as number[] };
    const fresh: string[] = [];
    let second = 0;
    let aDownAfterMs: number | undefined;
    while (performance.now() - cutAt < 15_000) {
      second += 1;
      const orderNo = `2621${stamp}${String(second).padStart(4, '0')}`;
      fresh.push(orderNo);
      answers.aDuringCut.push(await deliver(a, `2622${stamp}${String(second).padStart(4, '0')}`));
      answers.bNew.push(await deliver(b, orderNo));
      for (const heldOrder of heldOrders) answers.bRetries.push(await deliver(b, heldOrder));
      if (aDownAfterMs === undefined && !redises[0]!.callbackStore.available) aDownAfterMs = performance.now() - cutAt;
      await pause(1_000);
    }
    proxy.heal();
    const healedAt = performance.now();
    await eventually('A back', () => redises[0]!.available, 10_000);
    for (const orderNo of heldOrders) await eventually(`the retry of ${orderNo} at B`, async () => (await deliver(b, orderNo)) === 200, 10_000);
    for (let index = 1; index <= second; index++) await eventually('a retry at A', async () => (await deliver(a, `2622${stamp}${String(index).padStart(4, '0')}`)) === 200, 5_000);
    console.log(`cut off ${Math.round(healedAt - cutAt)} ms; every held outcome acknowledged ${Math.round(performance.now() - healedAt)} ms after the heal`);
    const counts = new Map<string, number>();
    for (const event of handled) counts.set(event.orderNo, (counts.get(event.orderNo) ?? 0) + 1);
    return { heldOrders, fresh, answers, counts, aDownAfterMs };
  } finally {
    open();
    proxy.heal();
    for (const handler of handlers) handler.close();
    await Promise.all(redises.map((each) => each.close()));
  }
}

describe('one kit process cut off from Redis for 15 s while the other serves', () => {
  it('never lets the other take over what the cut-off one handled: each outcome reaches onCallback once', async () => {
    const { heldOrders, fresh, answers, counts, aDownAfterMs } = await partitionRun();
    // The cut-off process stopped taking callbacks within its command timeout and a beat, long before its lease lapses.
    expect(aDownAfterMs).toBeLessThan(3_000);
    expect(answers.aDuringCut.every((status) => status === 503)).toBe(true);
    // The other served new callbacks, and answered the held ones "later", never handling them.
    expect(answers.bNew.every((status) => status === 200)).toBe(true);
    expect(answers.bRetries.every((status) => status === 503)).toBe(true);
    for (const orderNo of [...heldOrders, ...fresh]) expect(counts.get(orderNo)).toBe(1);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
  }, 40_000);
});
