// Beacons within limits (issue 44): `POST /timings` needs no proof, so what reaches svc-checkout:timing is counted like
// every call a browser makes — per client (`timingsPerClient`, 30 a minute) and in all (`timings`), across processes
// with Redis (docs/limits.md). A flood is sent as an attacker sends it, and what reaches the channel is counted; every
// beacon, dropped or not, is answered 204 (its sender never reads it).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS } from '../../src/core/index.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { CHANNELS, createMerchantHandler, DEFAULT_LIMITS, toNodeListener, type MerchantHandler, type MerchantHandlerOptions } from '../../src/server/index.js';
import { connectRedis, type RedisKit } from '../../src/server/redis/connect.js';
import { FakeClock } from '../support/fake-clock.js';
import { listen } from '../support/fake-service.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';

const published: unknown[] = [];
const hear = (message: unknown) => published.push(message);
beforeEach(() => {
  published.length = 0;
  subscribe(CHANNELS.timing, hear);
});
afterEach(() => unsubscribe(CHANNELS.timing, hear));

const handlers: MerchantHandler[] = [];
afterAll(() => handlers.forEach((handler) => handler.close()));

/** A kit that counts clients by a header, as one behind a proxy it trusts reads them. */
function kit(options: Partial<MerchantHandlerOptions> = {}): MerchantHandler {
  const handler = createMerchantHandler({
    ...DEFAULT_MERCHANT,
    environment: 'sandbox',
    basePath: '/checkout',
    logger: { warn: () => undefined, error: () => undefined },
    clientAddress: (request) => request.headers.get('x-client') ?? undefined,
    ...options,
  });
  handlers.push(handler);
  return handler;
}

const timings = (count: number) => JSON.stringify({ timings: Array.from({ length: count }, (_, index) => ({ kind: 'stop', step: 'form', method: 'Pos', ms: 1_000 + index })) });

/** One beacon from `client`, as `navigator.sendBeacon` sends it. */
const beacon = (handler: MerchantHandler, client: string, count: number) =>
  handler(new Request(`https://shop.example/checkout${MERCHANT_PATHS.timings}`, { method: 'POST', headers: { 'Content-Type': 'text/plain;charset=UTF-8', 'X-Client': client }, body: timings(count) }));

describe('the beacons’ limits', () => {
  it('publishes at most 30 timings a minute from one client, however many beacons it floods', async () => {
    expect(DEFAULT_LIMITS.timingsPerClient).toEqual({ limit: 30, windowSeconds: 60 });
    const clock = new FakeClock({ startAt: 1_000_000 });
    const handler = kit({ now: clock.now });
    // 30 000 forged "stopped at the form" timings: 1 500 beacons of 20, all at once.
    const answers = await Promise.all(Array.from({ length: 1_500 }, () => beacon(handler, '203.0.113.9', 20)));
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([204]));
    expect(published).toHaveLength(20);
    // What a beacon too large for what is left did not spend stays for a smaller one: 30 in all.
    expect((await beacon(handler, '203.0.113.9', 10)).status).toBe(204);
    expect((await beacon(handler, '203.0.113.9', 1)).status).toBe(204);
    expect(published).toHaveLength(30);
    // Another client has its own 30; the first has 30 again in the next minute.
    await beacon(handler, '198.51.100.7', 20);
    expect(published).toHaveLength(50);
    await clock.advance(60_000);
    await beacon(handler, '203.0.113.9', 20);
    expect(published).toHaveLength(70);
  });

  it('counts a client by its socket under toNodeListener, its IPv6 /64 as one', async () => {
    const handler = createMerchantHandler({ ...DEFAULT_MERCHANT, environment: 'sandbox', basePath: '/checkout', logger: { warn: () => undefined, error: () => undefined } });
    handlers.push(handler);
    const server = await listen(toNodeListener(handler));
    try {
      const send = () => fetch(`${server.url}/checkout${MERCHANT_PATHS.timings}`, { method: 'POST', headers: { 'Content-Type': 'text/plain;charset=UTF-8' }, body: timings(7) });
      const answers = await Promise.all(Array.from({ length: 40 }, send));
      expect(answers.every((answer) => answer.status === 204)).toBe(true);
      expect(published).toHaveLength(28);
    } finally {
      await server.close();
    }
    const v6 = kit();
    for (const address of ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:a:b:c:d']) await beacon(v6, address, 20);
    expect(published).toHaveLength(28 + 20);
  });

  it('publishes at most the kit’s `timings` from many clients', async () => {
    const handler = kit({ limits: { timings: { limit: 100, windowSeconds: 60 } } });
    await Promise.all(Array.from({ length: 200 }, (_, index) => beacon(handler, `10.0.${index >> 8}.${index & 255}`, 5)));
    expect(published).toHaveLength(100);
  });

  it('counts nothing when nobody listens, and publishes everything with the limits off', async () => {
    unsubscribe(CHANNELS.timing, hear);
    const handler = kit({ limits: { timings: { limit: 20, windowSeconds: 60 } } });
    await beacon(handler, '203.0.113.50', 20);
    subscribe(CHANNELS.timing, hear);
    await beacon(handler, '203.0.113.50', 20);
    expect(published).toHaveLength(20);
    const open = kit({ limits: { timingsPerClient: false, timings: false } });
    await Promise.all(Array.from({ length: 50 }, () => beacon(open, '203.0.113.9', 20)));
    expect(published).toHaveLength(20 + 1_000);
  });

  describe('across kit processes sharing Redis', () => {
    let redis: TestRedis;
    const kits: RedisKit[] = [];
    afterAll(async () => {
      await Promise.all(kits.map((connected) => connected.close()));
      await redis?.close();
    });

    it('publishes at most 30 timings a minute from one client, and the kit’s whole, however the beacons are spread', async () => {
      redis = await startRedis();
      for (let index = 0; index < 2; index += 1) kits.push(await connectRedis({ url: redis.url, merchantId: DEFAULT_MERCHANT.merchantId, logger: { warn() {}, error() {} } }));
      const [one, two] = kits.map((connected) => kit({ throttleStore: connected.throttleStore, limits: { timings: { limit: 150, windowSeconds: 60 } } })) as [MerchantHandler, MerchantHandler];
      await Promise.all(Array.from({ length: 200 }, (_, index) => beacon(index % 2 ? one : two, '203.0.113.9', 3)));
      expect(published).toHaveLength(30);
      published.length = 0;
      await Promise.all(Array.from({ length: 200 }, (_, index) => beacon(index % 2 ? one : two, `10.1.${index >> 8}.${index & 255}`, 2)));
      // The kit's 150, less the 30 the first client's beacons spent of it.
      expect(published).toHaveLength(120);
    });
  });
});
