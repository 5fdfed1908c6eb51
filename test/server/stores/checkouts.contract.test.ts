/**
 * The checkout store's contract (src/server/stores/checkouts/port.ts), run against each adapter: memory, and Redis shared by
 * two connections as two kit processes share it. A record never says fewer attempts than were forwarded, keeps what
 * each attempt was made for, and counts the earlier scheme's orders once looked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCheckoutStore } from '../../../src/server/index.js';
import { type CheckoutStore } from '../../../src/server/stores/checkouts/port.js';
import { connectRedis, type RedisKit } from '../../../src/server/redis/connect.js';
import { startRedis, type TestRedis } from '../../support/redis-server.js';

const EGP = (total: number) => ({ total, currency: 'EGP' });

let redis: TestRedis;
let one: RedisKit;
let two: RedisKit;

beforeAll(async () => {
  redis = await startRedis();
  const keyPrefix = `checkouts${Date.now()}:`;
  one = await connectRedis({ url: redis.url, keyPrefix, logger: { warn() {}, error() {} } });
  two = await connectRedis({ url: redis.url, keyPrefix, logger: { warn() {}, error() {} } });
});

afterAll(async () => {
  await one.close();
  await two.close();
  await redis.close();
});

/** Each adapter as a writer and a reader (the same store in memory; two processes' connections in Redis). */
const ADAPTERS: Record<string, () => { writer: CheckoutStore; reader: CheckoutStore }> = {
  memory: () => {
    const store = new MemoryCheckoutStore();
    return { writer: store, reader: store };
  },
  redis: () => ({ writer: one.checkoutStore, reader: two.checkoutStore }),
};

describe.each(Object.keys(ADAPTERS))('the %s checkout store', (name) => {
  let stores: { writer: CheckoutStore; reader: CheckoutStore };
  let serial = 0;
  const checkout = () => `${name}-cart-${(serial += 1)}`;
  beforeAll(() => {
    stores = ADAPTERS[name]!();
  });

  it('knows nothing of a checkout it never saw', async () => {
    expect(await stores.reader.read(checkout())).toBeUndefined();
  });

  it('proves no order once the service said none, until a create is forwarded', async () => {
    const cart = checkout();
    await stores.writer.seen(cart, 0, 0);
    expect(await stores.reader.read(cart)).toEqual({ forwarded: 0, amounts: {}, legacy: 0 });
    await stores.writer.forwarding(cart, 1, EGP(12_500));
    expect(await stores.reader.read(cart)).toEqual({ forwarded: 1, amounts: { 1: EGP(12_500) }, legacy: 0 });
  });

  it('counts no earlier-scheme order for a checkout whose first attempt it forwards itself', async () => {
    const cart = checkout();
    await stores.writer.forwarding(cart, 1, EGP(900));
    expect(await stores.reader.read(cart)).toEqual({ forwarded: 1, amounts: { 1: EGP(900) }, legacy: 0 });
  });

  it('never says fewer attempts than were forwarded, and keeps what each was made for', async () => {
    const cart = checkout();
    await stores.writer.forwarding(cart, 3, EGP(300));
    await stores.writer.forwarding(cart, 2, EGP(200));
    // A walk that began before attempt 3 was forwarded answers later: it lowers nothing.
    await stores.writer.seen(cart, 1, 2);
    expect(await stores.reader.read(cart)).toEqual({ forwarded: 3, amounts: { 2: EGP(200), 3: EGP(300) }, legacy: 2 });
    await stores.writer.seen(cart, 4, 2);
    expect((await stores.reader.read(cart))?.forwarded).toBe(4);
  });

  it('keeps which payment each attempt is, beside what it was made for, through the walks that follow', async () => {
    const cart = checkout();
    await stores.writer.forwarding(cart, 1, EGP(500), { payMethod: 'Pos', sn: 'N78101818410' });
    await stores.writer.forwarding(cart, 2, EGP(500));
    await stores.writer.noted(cart, 2, { payMethod: 'ReferenceCode', referenceCode: '123456789' });
    await stores.writer.seen(cart, 2, 0);
    expect(await stores.reader.read(cart)).toEqual({
      forwarded: 2,
      amounts: { 1: EGP(500), 2: EGP(500) },
      legacy: 0,
      notes: { 1: { payMethod: 'Pos', sn: 'N78101818410' }, 2: { payMethod: 'ReferenceCode', referenceCode: '123456789' } },
    });
  });
});

describe('what the stores forget', () => {
  it('in memory: a record after its life, and the least recently used beyond the bound', () => {
    let now = 0;
    const store = new MemoryCheckoutStore({ ttlMs: 1_000, maxEntries: 4, now: () => now });
    store.seen('a', 0, 0);
    now = 999;
    expect(store.read('a')).toBeDefined();
    now = 1_000;
    expect(store.read('a')).toBeUndefined();
    for (const cart of ['b', 'c', 'd', 'e', 'f']) store.seen(cart, 0, 0);
    expect(['b', 'c', 'd', 'e', 'f'].filter((cart) => store.read(cart) !== undefined).length).toBeLessThanOrEqual(4);
  });

  it('in Redis: every write gives the record its life again (30 days)', async () => {
    await one.checkoutStore.forwarding('ttl-cart', 1, EGP(100));
    const raw = (await import('redis')).createClient({ url: redis.url });
    await raw.connect();
    try {
      const ttl = await raw.pTTL(`${one.keyPrefix}checkout:ttl-cart`);
      expect(ttl).toBeGreaterThan(29 * 86_400_000);
      expect(ttl).toBeLessThanOrEqual(30 * 86_400_000);
    } finally {
      await raw.quit();
    }
  });
});
