// Reconciliation against the real sandbox: the kit keeps the orders it created and has not seen settled, asks the
// service about each one that stays quiet or passes its deadline, and hands each outcome it finds to onCallback
// through the same exactly-once path as the callbacks.
import { afterEach, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER, SERVICE_PATHS } from '../../src/core/index.js';
import { createMerchantHandler, issueOrderToken, ORDER_TOKEN_GRACE_SECONDS, type MerchantHandlerOptions } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { MemoryReconciliationStore } from '../../src/server/stores/reconciliation/memory.js';
import type { ReconciliationStore } from '../../src/server/stores/reconciliation/port.js';
import { StoreUnavailableError } from '../../src/server/stores/shared.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { posRequest } from '../core/fixtures.js';
import { freePort } from '../support/redis-server.js';
import { eventually, wire, type Wired } from '../support/sandbox-fixture.js';
import { openStream } from '../support/sse.js';
import { tokenFor } from '../support/tokens.js';

let wired: Wired | undefined;

afterEach(async () => {
  await wired?.close();
  wired = undefined;
});

/**
 * The kit's fetch when the service makes an order but its answer never reaches the kit (a connection cut on the way
 * back): the first `times` creates' answers lost, every one by default.
 */
function losingCreateAnswers(times = Number.POSITIVE_INFINITY): typeof fetch {
  let lost = 0;
  return async (input, init) => {
    const answer = await fetch(input, init);
    if (String(input).endsWith(SERVICE_PATHS.create) && lost < times) {
      lost += 1;
      throw new TypeError('fetch failed: the answer was lost');
    }
    return answer;
  };
}

/** A kit whose callbacks go to `callbackUrl` (a closed port: the shop's endpoint is down), its status queries counted. */
async function shop(options: Partial<MerchantHandlerOptions> & { callbackUrl?: string } = {}) {
  const counted = { statusQueries: 0, clockOffsetMs: 0 };
  const { callbackUrl, ...handler } = options;
  const down = callbackUrl ?? `http://127.0.0.1:${await freePort()}${MERCHANT_PATHS.callbacks}`;
  wired = await wire({
    sandbox: { tickMs: 20 },
    handler: {
      ...(callbackUrl === 'kit' ? {} : { callbackUrl: down }),
      limits: { createsPerClient: false },
      now: () => Date.now() + counted.clockOffsetMs,
      fetch: (input, init) => {
        if (String(input).endsWith(SERVICE_PATHS.status)) counted.statusQueries += 1;
        return fetch(input, init);
      },
      ...handler,
    },
  });
  return Object.assign(counted, { wired });
}

let serial = 0;
async function createOrders(kit: Wired, count: number): Promise<{ orderNo: string; sn: string }[]> {
  const orders: { orderNo: string; sn: string }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        next += 1;
        serial += 1;
        const body = posRequest({ reference: `reconcile-${Date.now()}-${serial}`, sn: `SN-REC-${serial}`, expireAt: 30 });
        const answer = await kit.merchant(MERCHANT_PATHS.create, body);
        expect(answer.code).toBe('00000');
        orders.push({ orderNo: answer.data.orderNo, sn: body.sn });
      }
    }),
  );
  return orders;
}

async function inBatches<T>(items: T[], run: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += 32) await Promise.all(items.slice(start, start + 32).map(run));
}

const outcomes = (events: CallbackEvent[]) => events.map((event) => `${event.body.orderNo} ${event.body.status} ${event.source}`).sort();

describe('reconciliation', () => {
  it('brings every outcome of 1 000 orders to a shop whose callback endpoint is down for their whole life, each once, then stops asking', async () => {
    const store = new MemoryReconciliationStore();
    const kit = await shop({ reconcile: { quietSeconds: 1, sweepSeconds: 0.2, queriesPerSecond: 2_000 }, reconciliationStore: store });
    const orders = await createOrders(kit.wired, 1_000);
    expect(store.size).toBe(1_000);
    const expected = orders.map((order, index) => ({ ...order, status: index % 5 === 4 ? 'CLOSE' : index % 5 === 3 ? 'FAIL' : 'SUCCESS' }));
    await inBatches(
      expected.filter((order) => order.status !== 'CLOSE'),
      (order) => kit.wired.sandboxControl.swipe(order.sn, order.status === 'SUCCESS' ? 'success' : 'fail'),
    );
    // The rest expire, on the service's clock.
    await kit.wired.sandboxControl.advanceClock(31);
    await eventually('every outcome handed over', () => kit.wired.callbacks.length >= 1_000, 60_000);
    expect(outcomes(kit.wired.callbacks)).toEqual(expected.map((order) => `${order.orderNo} ${order.status} reconciliation`).sort());
    // The service tried, and nobody ever acknowledged a callback.
    const attempts = await kit.wired.sandboxControl.callbacks();
    expect(attempts.length).toBeGreaterThanOrEqual(1_000);
    expect(attempts.some((attempt) => attempt.acknowledged)).toBe(false);
    // Settled orders are forgotten: no more queries.
    await eventually('the store empty', () => store.size === 0);
    const asked = kit.statusQueries;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(kit.statusQueries).toBe(asked);
    expect(kit.wired.callbacks).toHaveLength(1_000);
  }, 120_000);

  it('asks about an order at its deadline when it has been quiet for less than the quiet time', async () => {
    const store = new MemoryReconciliationStore();
    const kit = await shop({ reconcile: { quietSeconds: 3_600, sweepSeconds: false }, reconciliationStore: store });
    const [order] = await createOrders(kit.wired, 1);
    expect(await kit.wired.sandboxControl.advanceClock(31)).toBeDefined();
    expect(await kit.wired.handler.reconcile()).toEqual({ asked: 0, handled: 0, forgotten: 0 });
    kit.clockOffsetMs = 31 * 60_000; // the kit's clock passes the order's deadline too
    expect(await kit.wired.handler.reconcile()).toEqual({ asked: 1, handled: 1, forgotten: 1 });
    expect(outcomes(kit.wired.callbacks)).toEqual([`${order!.orderNo} CLOSE reconciliation`]);
    expect(kit.wired.callbacks[0]!.body).toMatchObject({ failureCode: 'ORDER_EXPIRED', notifyId: `reconciled:${order!.orderNo}:CLOSE`, amount: { total: 12_500, currency: 'EGP' } });
  });

  it("hands an outcome over at the next sweep once a payer's stream saw it settle, without waiting for the quiet time", async () => {
    const kit = await shop({ reconcile: { quietSeconds: 3_600, sweepSeconds: false }, streams: { pollIntervalMs: 100 } });
    const [order] = await createOrders(kit.wired, 1);
    const { merchantId, privateKey } = DEFAULT_MERCHANT;
    const reference = (await kit.wired.sandboxControl.order(order!.orderNo)).reference;
    const token = await issueOrderToken(privateKey, { merchantId, orderNo: order!.orderNo, reference, country: 'EG', expiresAt: Math.floor(Date.now() / 1000) + 3_600 + ORDER_TOKEN_GRACE_SECONDS });
    const stream = await openStream(`${kit.wired.merchantUrl}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: token });
    await stream.next('status');
    expect(await kit.wired.handler.reconcile()).toEqual({ asked: 0, handled: 0, forgotten: 0 });
    await kit.wired.sandboxControl.swipe(order!.sn, 'success');
    expect(JSON.parse((await stream.next('status', 2)).data).status).toBe('SUCCESS');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await kit.wired.handler.reconcile()).toEqual({ asked: 1, handled: 1, forgotten: 1 });
    expect(outcomes(kit.wired.callbacks)).toEqual([`${order!.orderNo} SUCCESS reconciliation`]);
    stream.close();
  });

  it('hands an outcome over once whichever comes first, the callback or the sweep', async () => {
    const kit = await shop({ callbackUrl: 'kit', reconcile: { quietSeconds: 0.001, sweepSeconds: false } });
    const [first, second] = await createOrders(kit.wired, 2);
    // The first: its callback is held back; the sweep finds it; then the callback comes, and is a duplicate.
    await kit.wired.sandboxControl.addDeliveryFault({ kind: 'omit', orderNo: first!.orderNo });
    await kit.wired.sandboxControl.swipe(first!.sn, 'success');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await kit.wired.handler.reconcile()).handled).toBe(1);
    const [omitted] = await kit.wired.sandboxControl.deliveries({ orderNo: first!.orderNo });
    const resent = await kit.wired.sandboxControl.resendCallback(omitted!.notifyId);
    expect(resent.status).toBe(200);
    expect(JSON.parse(resent.answer ?? '{}').data).toEqual({ duplicate: true });
    // The second: its callback comes first; the sweep finds it settled and forgets it without a second hand-over.
    await kit.wired.sandboxControl.swipe(second!.sn, 'fail');
    await eventually('the callback handled', () => kit.wired.callbacks.length === 2);
    expect(await kit.wired.handler.reconcile()).toEqual({ asked: 0, handled: 0, forgotten: 0 });
    expect(outcomes(kit.wired.callbacks)).toEqual([`${first!.orderNo} SUCCESS reconciliation`, `${second!.orderNo} FAIL callback`].sort());
  });

  it('gives a callback and a reconciliation of the same outcome one key, under which the shop fulfils it once', async () => {
    // The shop fulfils by the outcome's key; its first try ships, then its process dies before it answers.
    const fulfilled = new Map<string, number>();
    const given: { source: string; key: string }[] = [];
    let crash = true;
    const kit = await shop({
      callbackUrl: 'kit',
      reconcile: { quietSeconds: 0.001, sweepSeconds: false },
      onCallback: (event) => {
        given.push({ source: event.source, key: event.outcomeKey });
        fulfilled.set(event.outcomeKey, (fulfilled.get(event.outcomeKey) ?? 0) + (fulfilled.has(event.outcomeKey) ? 0 : 1));
        if (crash) {
          crash = false;
          throw new Error('crashed after shipping');
        }
      },
    });
    const [order] = await createOrders(kit.wired, 1);
    await kit.wired.sandboxControl.swipe(order!.sn, 'success');
    await eventually('the callback tried', () => given.length === 1);
    // Not handed over (it threw): the sweep asks the service, and hands the same outcome over again.
    expect(await kit.wired.handler.reconcile()).toEqual({ asked: 1, handled: 1, forgotten: 1 });
    expect(given).toEqual([
      { source: 'callback', key: `outcome:${order!.orderNo}:SUCCESS` },
      { source: 'reconciliation', key: `outcome:${order!.orderNo}:SUCCESS` },
    ]);
    expect([...fulfilled]).toEqual([[`outcome:${order!.orderNo}:SUCCESS`, 1]]);
    // The service's next delivery of the callback is a duplicate: onCallback does not run again.
    const [delivery] = await kit.wired.sandboxControl.deliveries({ orderNo: order!.orderNo });
    const resent = await kit.wired.sandboxControl.resendCallback(delivery!.notifyId);
    expect(JSON.parse(resent.answer ?? '{}').data).toEqual({ duplicate: true });
    expect(given).toHaveLength(2);
    // The notifyIds differ (the service's, and the kit's `reconciled:` one): never deduplicate by them.
    expect(kit.wired.callbacks.map((event) => event.notifyId)).toEqual([delivery!.notifyId, `reconciled:${order!.orderNo}:SUCCESS`]);
  });

  it('keeps queriesPerSecond through a sweep: a full window is waited out, and the sweep goes on in the next', async () => {
    let failing = true;
    const handled: CallbackEvent[] = [];
    const kit = await shop({
      reconcile: { quietSeconds: 0.001, sweepSeconds: false, queriesPerSecond: 5 },
      onCallback: (event) => {
        if (failing) throw new Error('database unavailable');
        handled.push(event);
      },
    });
    const orders = await createOrders(kit.wired, 12);
    await inBatches(orders, (order) => kit.wired.sandboxControl.swipe(order.sn, 'success'));
    const before = kit.statusQueries;
    const started = Date.now();
    const first = await kit.wired.handler.reconcile();
    const took = Date.now() - started;
    // One sweep asks about all twelve: five a second, so in three windows, the last starting two seconds after the first.
    expect(first.asked).toBe(12);
    expect(kit.statusQueries - before).toBe(12);
    expect(first.handled).toBe(0);
    expect(took).toBeGreaterThanOrEqual(1_900);
    expect(took).toBeLessThan(4_000);
    failing = false;
    await eventually('every outcome handed over', async () => {
      await kit.wired.handler.reconcile();
      return handled.length === 12;
    }, 15_000);
    expect(new Set(outcomes(handled)).size).toBe(12);
  });

  it('reconciles an order whose create answer was lost, once the kit learns of it by its reference', async () => {
    const kit = await shop({
      reconcile: { quietSeconds: 0.001, sweepSeconds: false },
      // The service made the order; its answer never reached the kit (a connection cut on the way back).
      fetch: losingCreateAnswers(),
    });
    const body = posRequest({ reference: `reconcile-lost-${Date.now()}`, sn: 'SN-REC-LOST', expireAt: 30 });
    expect((await kit.wired.merchant(MERCHANT_PATHS.create, body)).code).not.toBe('00000');
    expect(await kit.wired.handler.reconcile()).toEqual({ asked: 0, handled: 0, forgotten: 0 });
    // The page looks its order up by reference, as the element does after a lost answer: now the kit knows it.
    const found = await kit.wired.merchant(MERCHANT_PATHS.status, { country: body.country, reference: body.reference });
    expect(found.data).toMatchObject({ reference: body.reference, status: 'PENDING' });
    await kit.wired.sandboxControl.swipe(body.sn, 'success'); // paid; its callback never arrives
    await eventually('asked and handed over', async () => (await kit.wired.handler.reconcile()).handled === 1, 5_000);
    expect(outcomes(kit.wired.callbacks)).toEqual([`${found.data.orderNo} SUCCESS reconciliation`]);
    // The checkout it belongs to, as for an order whose answer came: the shop can tell its cart paid.
    expect(kit.wired.callbacks[0]!.checkout).toMatchObject({ reference: body.reference, attempt: 1, amount: { total: body.amount.total, currency: body.amount.currency } });
  });

  it("reconciles an order whose create answer was lost when the shop's openCheckout finds it, with its checkout", async () => {
    const kit = await shop({
      reconcile: { quietSeconds: 0.001, sweepSeconds: false },
      fetch: losingCreateAnswers(),
    });
    const body = posRequest({ reference: `reconcile-open-${Date.now()}`, sn: 'SN-REC-OPEN', expireAt: 30 });
    expect((await kit.wired.merchant(MERCHANT_PATHS.create, body)).code).not.toBe('00000');
    expect(await kit.wired.handler.reconcile()).toEqual({ asked: 0, handled: 0, forgotten: 0 });
    // The payer reloads the page: the shop opens the cart's checkout, which asks the service where it stands.
    const opened = await kit.wired.handler.openCheckout(
      { reference: body.reference, amount: body.amount, country: body.country, product: body.product, expireAt: 30 },
      { client: 'payer-1' },
    );
    expect(opened).toMatchObject({ state: 'pending', attempt: 1, started: true });
    await kit.wired.sandboxControl.swipe(body.sn, 'success'); // paid; its callback never arrives
    await eventually('asked and handed over', async () => (await kit.wired.handler.reconcile()).handled === 1, 5_000);
    expect(outcomes(kit.wired.callbacks)).toEqual([`${opened.order!.orderNo} SUCCESS reconciliation`]);
    expect(kit.wired.callbacks[0]!.checkout).toMatchObject({ reference: body.reference, attempt: 1, amount: { total: body.amount.total, currency: body.amount.currency } });
  });

  it("reconciles an order whose create answer was lost when the payer's next create finds it (ORDER_EXISTS), with its checkout", async () => {
    const kit = await shop({
      reconcile: { quietSeconds: 0.001, sweepSeconds: false },
      fetch: losingCreateAnswers(1),
    });
    const body = posRequest({ reference: `reconcile-again-${Date.now()}`, sn: 'SN-REC-AGAIN', expireAt: 30 });
    expect((await kit.wired.merchant(MERCHANT_PATHS.create, body)).code).not.toBe('00000');
    // The payer presses Pay again: the kit looks at the checkout's attempts, finds the order pending, and answers it.
    const again = await kit.wired.merchant(MERCHANT_PATHS.create, body);
    expect(again.code).toBe('ORDER_EXISTS');
    await kit.wired.sandboxControl.swipe(body.sn, 'success'); // its callback never arrives
    await eventually('asked and handed over', async () => (await kit.wired.handler.reconcile()).handled === 1, 5_000);
    expect(outcomes(kit.wired.callbacks)).toEqual([`${again.data.orderNo} SUCCESS reconciliation`]);
    expect(kit.wired.callbacks[0]!.checkout).toMatchObject({ reference: body.reference, attempt: 1, amount: { total: body.amount.total, currency: body.amount.currency } });
  });

  it("gives an order first learnt from a stream by order token its checkout, from the kit's record of the checkout", async () => {
    // The create's answer came, but the store could not keep its order then (Redis away for a moment): the first word
    // reconciliation gets of it is the payer's stream, whose order token names no checkout.
    let refuse = true;
    const store = new MemoryReconciliationStore();
    const flaky: ReconciliationStore = {
      track: (order, dueAt, keep) => {
        if (refuse) {
          refuse = false;
          throw new StoreUnavailableError('the reconciliation store is away');
        }
        return store.track(order, dueAt, keep);
      },
      take: (now, limit, until) => store.take(now, limit, until),
      reschedule: (orderNo, dueAt) => store.reschedule(orderNo, dueAt),
      forget: (orderNo) => store.forget(orderNo),
    };
    const kit = await shop({ reconcile: { quietSeconds: 3_600, sweepSeconds: false }, reconciliationStore: flaky, streams: { pollIntervalMs: 100 } });
    const [order] = await createOrders(kit.wired, 1);
    expect(store.size).toBe(0);
    const { merchantId, privateKey } = DEFAULT_MERCHANT;
    const seen = await kit.wired.sandboxControl.order(order!.orderNo);
    const token = await issueOrderToken(privateKey, { merchantId, orderNo: order!.orderNo, reference: seen.reference, country: 'EG', expiresAt: Math.floor(Date.now() / 1000) + 3_600 + ORDER_TOKEN_GRACE_SECONDS });
    const stream = await openStream(`${kit.wired.merchantUrl}${MERCHANT_PATHS.events}`, { [ORDER_TOKEN_HEADER]: token });
    await stream.next('status');
    expect(store.size).toBe(1);
    await kit.wired.sandboxControl.swipe(order!.sn, 'success'); // its callback never arrives
    expect(JSON.parse((await stream.next('status', 2)).data).status).toBe('SUCCESS');
    await eventually('asked and handed over', async () => (await kit.wired.handler.reconcile()).handled === 1, 5_000);
    expect(kit.wired.callbacks[0]!.checkout).toEqual({ reference: seen.reference, attempt: 1, amount: { total: 12_500, currency: 'EGP' }, alsoPaid: [] });
    stream.close();
  });

  it('is off without onCallback, and with reconcile: false', async () => {
    const store = new MemoryReconciliationStore();
    const off = await shop({ reconcile: false, reconciliationStore: store });
    await createOrders(off.wired, 1);
    expect(store.size).toBe(0);
    expect(await off.wired.handler.reconcile()).toEqual({ asked: 0, handled: 0, forgotten: 0 });
    const { merchantId, privateKey } = DEFAULT_MERCHANT;
    const quiet = createMerchantHandler({ merchantId, privateKey, environment: { baseUrl: off.wired.sandbox.url }, reconciliationStore: store });
    const body = posRequest({ reference: `reconcile-off-${Date.now()}`, sn: 'SN-REC-OFF' });
    const answer = await quiet(
      new Request(`http://shop.example${MERCHANT_PATHS.create}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: await tokenFor({ merchantId, privateKey }, body) },
        body: JSON.stringify(body),
      }),
    );
    expect((await answer.json()).code).toBe('00000');
    expect(store.size).toBe(0);
  });
});
