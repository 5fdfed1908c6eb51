// Generated ids against the kit's one table of store keys (src/server/stores/keys.ts): no value of one space reaches a
// key of another — an outcome, a notification, a checkout, a limit's count, a stream's place, a ticket, the fixed keys —
// in memory (the spaces one store holds side by side) and in Redis (every space of every merchant's prefix), nor a key
// of another merchant. For each key generated, an attacker's search tries every space and every choice of its fixed
// parts, and solves for the free value that would spell the same key: it must find only the key's own. Then the real
// stores, in memory and in a real redis-server: ids built from another space's keys never mark that space's key.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../src/core/index.js';
import { handOver, outcomeKey, type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { LIMIT_TABLE } from '../../src/server/limits/table.js';
import { connectRedis, type RedisKit } from '../../src/server/redis/connect.js';
import { MemoryCallbackStore } from '../../src/server/stores/callbacks/memory.js';
import type { CallbackStore } from '../../src/server/stores/callbacks/port.js';
import { MemoryCheckoutStore } from '../../src/server/stores/checkouts/memory.js';
import type { CheckoutStore } from '../../src/server/stores/checkouts/port.js';
import { redisKeys, STORE_KEYS } from '../../src/server/stores/keys.js';
import { MemoryThrottleStore } from '../../src/server/stores/throttle/memory.js';
import type { ThrottleStore } from '../../src/server/stores/throttle/port.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { hostileString, tally } from './support.js';

const cases = tally('store keys');
afterAll(() => {
  console.log(cases.report());
});

const LIMITS = Object.keys(LIMIT_TABLE);
/** The words the keys are made of, and their separators: what an attacker spells another space's key with. */
const FRAGMENTS = ['', ':', '{', '}', 'outcome', 'notify', 'callback', 'checkout', 'throttle', 'ticket', 'open', 'leases', 'epoch', 'process', 'reconcile', 'due', 'svc-checkout', ...PAYMENT_STATUSES, ...LIMITS];
/** A value as an attacker writes it: fragments of keys, and any text between them. */
const id = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), hostileString), { maxLength: 6 }).map((parts) => parts.join(''));
/** A merchant id as connectRedis takes it ([\w.-]+). */
const merchant = fc.stringMatching(/^[\w.-]{1,12}$/);

/** A space: its fixed parts' choices, and the key it makes of them and one free value. */
interface Space {
  name: string;
  choices: readonly (readonly string[])[];
  key(fixed: readonly string[], value: string): string;
  /** A key of its own (the epoch, the leases): no free value, only its fixed parts. */
  whole?: true;
}

/** One key, as its space made it. */
interface Made {
  space: string;
  fixed: readonly string[];
  value: string;
  key: string;
}

/**
 * Every way to spell `key` in `spaces`: for each space and each choice of its fixed parts, the free value is found
 * from the key made with two different values (what they share before and after is the space's own text).
 */
function spellings(spaces: readonly Space[], key: string): Made[] {
  const found: Made[] = [];
  for (const space of spaces) {
    for (const fixed of product(space.choices)) {
      if (space.whole) {
        if (space.key(fixed, '') === key) found.push({ space: space.name, fixed, value: '', key });
        continue;
      }
      const [a, b] = [space.key(fixed, 'a'), space.key(fixed, 'b')];
      let before = 0;
      while (a[before] === b[before]) before += 1;
      let after = 0;
      while (a[a.length - 1 - after] === b[b.length - 1 - after]) after += 1;
      const [head, tail] = [a.slice(0, before), a.slice(a.length - after)];
      if (key.length < head.length + tail.length || !key.startsWith(head) || !key.endsWith(tail)) continue;
      const value = key.slice(head.length, key.length - tail.length);
      if (space.key(fixed, value) === key) found.push({ space: space.name, fixed, value, key });
    }
  }
  return found;
}

function product(choices: readonly (readonly string[])[]): string[][] {
  return choices.reduce<string[][]>((rows, options) => rows.flatMap((row) => options.map((option) => [...row, option])), [[]]);
}

/** The spaces one memory store holds side by side: the callbacks' store, and the throttle's (counts and places apart). */
const MEMORY_STORES: Record<string, Space[]> = {
  callbacks: [
    { name: 'outcome', choices: [PAYMENT_STATUSES], key: ([status], orderNo) => STORE_KEYS.outcome(orderNo, status as PaymentStatus) },
    { name: 'notification', choices: [], key: (_, notifyId) => STORE_KEYS.notification(notifyId) },
  ],
  counts: [{ name: 'count', choices: [LIMITS], key: ([limit], what) => STORE_KEYS.count(limit!, what) }],
  places: [{ name: 'place', choices: [LIMITS], key: ([limit], what) => STORE_KEYS.place(limit!, what) }],
};

/** Every space of Redis, for the merchants given (the attacker may choose any of them). */
function redisSpaces(merchants: readonly string[]): Space[] {
  const keys = (merchantId: string) => redisKeys(`svc-checkout:${merchantId}:`);
  const withMerchant = (name: string, choices: readonly (readonly string[])[], key: (keys: ReturnType<typeof redisKeys>, fixed: readonly string[], value: string) => string): Space => ({
    name,
    choices: [merchants, ...choices],
    key: ([merchantId, ...fixed], value) => key(keys(merchantId!), fixed, value),
  });
  const fixedKey = (name: string, key: (keys: ReturnType<typeof redisKeys>) => string): Space => ({ ...withMerchant(name, [], (merchantKeys) => key(merchantKeys)), whole: true });
  return [
    withMerchant('outcome', [PAYMENT_STATUSES], (k, [status], orderNo) => k.callback(STORE_KEYS.outcome(orderNo, status as PaymentStatus))),
    withMerchant('notification', [], (k, _, notifyId) => k.callback(STORE_KEYS.notification(notifyId))),
    withMerchant('checkout', [], (k, _, checkout) => k.checkout(checkout)),
    withMerchant('count', [LIMITS], (k, [limit], what) => k.count(STORE_KEYS.count(limit!, what))),
    withMerchant('place', [LIMITS], (k, [limit], what) => k.place(STORE_KEYS.place(limit!, what))),
    withMerchant('ticket', [], (k, _, ticket) => k.ticket(ticket)),
    withMerchant('process lease', [], (k, _, id) => k.process(id)),
    fixedKey('leases', (k) => k.leases),
    fixedKey('reconcile due', (k) => k.reconcileDue),
    fixedKey('reconcile orders', (k) => k.reconcileOrders),
    fixedKey('epoch', (k) => k.epoch),
  ];
}

/** A key of one of `spaces`, made of generated parts. */
const madeIn = (spaces: readonly Space[]) =>
  fc
    .record({ space: fc.constantFrom(...spaces), pick: fc.array(fc.nat(), { minLength: 2, maxLength: 2 }), value: id })
    .map(({ space, pick, value }): Made => {
      const fixed = space.choices.map((options, index) => options[pick[index]! % options.length]!);
      const free = space.whole ? '' : value;
      return { space: space.name, fixed, value: free, key: space.key(fixed, free) };
    });

const only = (made: Made) => [{ space: made.space, fixed: made.fixed, value: made.value, key: made.key }];

describe('the store keys (src/server/stores/keys.ts)', () => {
  it.each(Object.entries(MEMORY_STORES))('in memory, no value spells another key of the %s store', async (store, spaces) => {
    await cases.check(`memory ${store}: every spelling of a key is its own`, madeIn(spaces), (made) => {
      expect(spellings(spaces, made.key)).toEqual(only(made));
    }, 600);
  });

  it('in Redis, no value spells another space’s key, nor another merchant’s', async () => {
    // Merchants whose ids share beginnings and ends, as an attacker would pick them.
    const merchants = fc.tuple(merchant, merchant).map(([one, two]) => [...new Set([one, `${one}${two}`, `${one}.${two}`, two])]);
    await cases.check(
      'redis: every spelling of a key is its own',
      merchants.chain((ids) => fc.tuple(fc.constant(ids), madeIn(redisSpaces(ids)))),
      ([ids, made]) => {
        expect(spellings(redisSpaces(ids), made.key)).toEqual(only(made));
      },
      400,
    );
  });
});

/** An id an attacker derives from another space's key: the key itself, or any part of it after a colon. */
function derivedIds(key: string): string[] {
  const ids = [key];
  for (let at = key.indexOf(':'); at >= 0; at = key.indexOf(':', at + 1)) ids.push(key.slice(at + 1), key.slice(0, at));
  return ids;
}

interface Stores {
  callbacks: CallbackStore;
  checkouts: CheckoutStore;
  throttle: ThrottleStore;
}

describe.each(['memory', 'redis'] as const)('the %s stores', (adapter) => {
  let redis: TestRedis | undefined;
  let prefixes = 0;

  beforeAll(async () => {
    if (adapter === 'redis') redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });

  /** Fresh stores for one case: in memory, or a kit process of its own on Redis under a prefix of its own. */
  async function fresh(use: (stores: Stores) => Promise<void>): Promise<void> {
    if (adapter === 'memory') return use({ callbacks: new MemoryCallbackStore(), checkouts: new MemoryCheckoutStore(), throttle: new MemoryThrottleStore() });
    const kit: RedisKit = await connectRedis({ url: redis!.url, keyPrefix: `keys${(prefixes += 1)}:`, logger: { warn() {}, error() {} } });
    try {
      await use({ callbacks: kit.callbackStore, checkouts: kit.checkoutStore, throttle: kit.throttleStore });
    } finally {
      await kit.close();
    }
  }

  const runs = adapter === 'memory' ? 300 : 60;

  it('hand every outcome over after notifications whose ids are spelled from its key', async () => {
    const orderNo = fc.oneof(fc.stringMatching(/^\d{13}$/), id);
    await cases.check(`${adapter}: a notification never marks an outcome handled`, fc.tuple(orderNo, fc.constantFrom('SUCCESS', 'FAIL', 'CLOSE') as fc.Arbitrary<PaymentStatus>), async ([order, status]) => fresh(async ({ callbacks }) => {
      const handed: string[] = [];
      const deliver = handOver({ store: callbacks, logger: { warn() {}, error() {} }, onCallback: (event) => void handed.push(event.notifyId) });
      const event = (notifyId: string, eventStatus: PaymentStatus): CallbackEvent => ({
        source: 'callback',
        outcomeKey: outcomeKey(order, eventStatus, notifyId),
        notifyId,
        body: { notifyId, orderNo: order, reference: 'r', status: eventStatus, country: 'EG', amount: { total: 1, currency: 'EGP' }, timestamp: 0, type: 'MACQUIRING_CALLBACK' } as CallbackEvent['body'],
        raw: '{}',
        timestamp: 0,
      });
      const forged = derivedIds(`callback:${STORE_KEYS.outcome(order, status)}`);
      for (const notifyId of forged) expect(await deliver(event(notifyId, 'PENDING'))).toBe('handled');
      expect(await deliver(event('the-real-one', status))).toBe('handled');
      expect(handed.at(-1)).toBe('the-real-one');
    }), runs);
  });

  it('keep a checkout, a limit’s count and a place apart from ids spelled from each other’s keys', async () => {
    await cases.check(`${adapter}: checkouts, counts and places never mark each other`, fc.tuple(id, fc.constantFrom(...LIMITS), fc.constantFrom(...LIMITS)), async ([value, limit, theirs]) => fresh(async ({ checkouts, throttle }) => {
      // The attacker's ids mark each space as hard as it can: a checkout seen, a count spent, a place held.
      const spelled = [...derivedIds(STORE_KEYS.count(limit, value)), ...derivedIds(`checkout:${value}`), ...derivedIds(STORE_KEYS.place(limit, value)), `${theirs}:${value}`];
      const held: { release(): void }[] = [];
      for (const forged of spelled) {
        if (forged !== value) await checkouts.seen(forged, 7, 0);
        for (const name of new Set([limit, theirs])) {
          if (name === limit && forged === value) continue;
          await throttle.hit(STORE_KEYS.count(name, forged), 1, 60_000, 5);
          const holding = await throttle.hold!([{ key: STORE_KEYS.place(name, forged), limit: 1 }]);
          if (holding.held) held.push(holding);
        }
      }
      expect(await checkouts.read(value)).toBeUndefined();
      expect((await throttle.hit(STORE_KEYS.count(limit, value), 1, 60_000)).allowed).toBe(true);
      const mine = await throttle.hold!([{ key: STORE_KEYS.place(limit, value), limit: 1 }]);
      expect(mine.held).toBe(true);
      if (mine.held) mine.release();
      for (const holding of held) holding.release();
    }), runs);
  });
});
