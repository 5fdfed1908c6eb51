// One callback cannot silence another (issue 44): the callbacks' store keeps notifications (by the service's notifyId)
// and settled outcomes (per order and status) in spaces of their own (src/server/stores/keys.ts). A signed PENDING
// callback whose notifyId is spelled as an order's outcome key once marked that order's payment handled, and the real
// SUCCESS was then answered 200 as a duplicate without reaching onCallback. Sent as the service sends them, to the
// kit's callback route, with the memory store and with a real redis-server shared by two kit processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_TYPE, canonicalJson, MERCHANT_PATHS } from '../../src/core/index.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { createMerchantHandler, signCallback, type CallbackEvent, type MerchantHandler } from '../../src/server/index.js';
import { connectRedis, type RedisKit } from '../../src/server/redis/connect.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';

const { merchantId, privateKey } = DEFAULT_MERCHANT;
const quiet = { warn: () => undefined, error: () => undefined };
let orders = 0;

/** A kit process: its handler, and what its onCallback was handed. */
interface Kit {
  handler: MerchantHandler;
  handed: CallbackEvent[];
}

function kit(stores: Partial<Pick<RedisKit, 'callbackStore'>> = {}): Kit {
  const handed: CallbackEvent[] = [];
  const handler = createMerchantHandler({
    merchantId,
    privateKey,
    environment: 'sandbox',
    logger: quiet,
    reconcile: false,
    onCallback: (event) => void handed.push(event),
    ...stores,
  });
  return { handler, handed };
}

/** A callback signed with the merchant's key, as the service sends it. */
async function deliver(to: Kit, body: Record<string, unknown>): Promise<{ status: number; json: { data?: { duplicate?: boolean } } }> {
  const payload = canonicalJson({ amount: { total: 12_500, currency: 'EGP' }, country: 'EG', timestamp: Date.now(), type: CALLBACK_TYPE, ...body });
  const timestamp = String(Date.now());
  const answer = await to.handler(
    new Request(`http://127.0.0.1${MERCHANT_PATHS.callbacks}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: await signCallback(timestamp, payload, privateKey), MerchantId: merchantId, RequestTimestamp: timestamp },
      body: payload,
    }),
  );
  return { status: answer.status, json: (await answer.json()) as { data?: { duplicate?: boolean } } };
}

/** A PENDING callback whose notifyId is the key an order's SUCCESS is claimed under, then the order's real SUCCESS. */
async function silenceAttempt(attacker: Kit, victim: Kit) {
  orders += 1;
  const orderNo = `26112200${String(orders).padStart(5, '0')}`;
  const reference = `order-${orders}`;
  const forged = await deliver(attacker, { notifyId: `outcome:${orderNo}:SUCCESS`, orderNo, reference, status: 'PENDING' });
  const paid = await deliver(victim, { notifyId: `notify-${orderNo}`, orderNo, reference, status: 'SUCCESS' });
  return { orderNo, forged, paid };
}

describe.each(['memory', 'redis'] as const)('with the %s callback store, one callback cannot silence another', (adapter) => {
  let redis: TestRedis | undefined;
  const kits: RedisKit[] = [];
  let attacker: Kit;
  let victim: Kit;

  beforeAll(async () => {
    if (adapter === 'memory') {
      attacker = kit();
      victim = attacker;
      return;
    }
    // Two kit processes on one real redis-server: the forged callback reaches one, the payment the other.
    redis = await startRedis();
    for (let index = 0; index < 2; index += 1) kits.push(await connectRedis({ url: redis.url, merchantId, logger: quiet }));
    [attacker, victim] = kits.map((connected) => kit({ callbackStore: connected.callbackStore })) as [Kit, Kit];
  });
  afterAll(async () => {
    for (const { handler } of [attacker, victim]) handler.close();
    await Promise.all(kits.map((connected) => connected.close()));
    await redis?.close();
  });

  it('hands a payment to onCallback after a PENDING callback whose notifyId is spelled outcome:<orderNo>:SUCCESS', async () => {
    const { orderNo, forged, paid } = await silenceAttempt(attacker, victim);
    expect(forged.status).toBe(200);
    expect(paid).toEqual({ status: 200, json: expect.objectContaining({ data: { duplicate: false } }) });
    const handed = [...new Set([...attacker.handed, ...victim.handed])].filter((event) => event.body.orderNo === orderNo);
    expect(handed.map((event) => [event.notifyId, event.body.status])).toEqual([
      [`outcome:${orderNo}:SUCCESS`, 'PENDING'],
      [`notify-${orderNo}`, 'SUCCESS'],
    ]);
    // Still once per outcome: the payment delivered again, under any notifyId, is a duplicate.
    const again = await deliver(attacker, { notifyId: `retry-${orderNo}`, orderNo, reference: handed[1]!.body.reference, status: 'SUCCESS' });
    expect(again.json.data).toEqual({ duplicate: true });
    expect(victim.handed.filter((event) => event.body.status === 'SUCCESS' && event.body.orderNo === orderNo)).toHaveLength(1);
  });

  // Redis's own keys, which only the shared store has: registered for it alone (memory keeps no keys to read).
  if (adapter === 'redis')
    it('keeps outcomes under the keys they had before, and notifications under notify:', async () => {
      const { orderNo } = await silenceAttempt(attacker, victim);
      const prefix = `svc-checkout:${merchantId}:callback:`;
      const client = await import('redis').then(({ createClient }) => createClient({ url: redis!.url }).connect());
      try {
        expect(await client.get(`${prefix}outcome:${orderNo}:SUCCESS`)).toBe('done');
        expect(await client.get(`${prefix}notify:outcome:${orderNo}:SUCCESS`)).toBe('done');
      } finally {
        await client.quit();
      }
    });
});
