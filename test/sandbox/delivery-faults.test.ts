// Callback delivery under control, against the real merchant kit (createMerchantHandler + toNodeListener): every
// delivery fault the sandbox can make is refused by the kit (401, 400) or handled once (onCallback once per
// notifyId), and a logged callback can be sent again on request.
import { afterEach, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS } from '../../src/core/index.js';
import type { SandboxDeliveryFaultInput, SandboxDeliveryView } from '../../src/sandbox/control/client.js';
import { DELIVERY_FAULT_KINDS, type Sandbox } from '../../src/sandbox/index.js';
import { posRequest } from '../core/fixtures.js';
import { eventually, wire, type Wired } from '../support/sandbox-fixture.js';

let wired: Wired | undefined;
afterEach(async () => {
  await wired?.close();
  wired = undefined;
});

let counter = 0;

/** A POS order made through the kit, waiting at a terminal of its own. */
async function posOrder(): Promise<{ orderNo: string; reference: string; sn: string }> {
  counter += 1;
  const reference = `dfault-${counter}`;
  const sn = `SN-DF-${counter}`;
  const answer = await wired!.merchant(MERCHANT_PATHS.create, posRequest({ reference, sn }));
  expect(answer.code, JSON.stringify(answer)).toBe('00000');
  return { orderNo: answer.data.orderNo, reference, sn };
}

async function paid(order: { sn: string }): Promise<void> {
  await wired!.sandboxControl.swipe(order.sn, 'success');
}

/** The delivery of an order's callback once `done` says it is where the test wants it. */
async function deliveryOf(orderNo: string, done: (delivery: SandboxDeliveryView) => boolean): Promise<SandboxDeliveryView> {
  return eventually(`the delivery of ${orderNo}`, async () => {
    await wired!.sandbox.idle();
    const [delivery] = await wired!.sandboxControl.deliveries({ orderNo });
    return delivery && done(delivery) ? delivery : undefined;
  });
}

const handled = (orderNo: string) => wired!.callbacks.filter((event) => event.body.orderNo === orderNo);

/** Moves the sandbox clock past the first retry (10 s). */
const pastFirstRetry = () => wired!.sandboxControl.advanceClock(11 / 60);

async function faultFor(order: { reference: string }, fault: Omit<SandboxDeliveryFaultInput, 'reference'>) {
  return wired!.sandboxControl.addDeliveryFault({ ...fault, reference: order.reference });
}

describe('callback delivery faults, against the merchant kit', () => {
  it('duplicate: the same notifyId twice, each acknowledged; onCallback once', async () => {
    wired = await wire();
    const order = await posOrder();
    await faultFor(order, { kind: 'duplicate' });
    await paid(order);
    const delivery = await deliveryOf(order.orderNo, (item) => item.attempts.length === 2 && item.attempts.every((attempt) => attempt.status !== null));
    expect(delivery.attempts.map((attempt) => [attempt.trigger, attempt.status])).toEqual([
      ['delivery', 200],
      ['duplicate', 200],
    ]);
    expect(JSON.parse(delivery.attempts[1]!.answer!)).toMatchObject({ code: '00000', data: { duplicate: true } });
    expect(handled(order.orderNo)).toHaveLength(1);
  });

  it('omit: nothing arrives and nothing is retried; the status query knows; a re-send on request is handled once', async () => {
    wired = await wire();
    const order = await posOrder();
    await faultFor(order, { kind: 'omit' });
    await paid(order);
    const delivery = await deliveryOf(order.orderNo, (item) => item.state === 'omitted');
    expect(delivery.attempts).toMatchObject([{ fault: 'omit', status: null, headers: {} }]);
    await pastFirstRetry();
    await wired.sandbox.idle();
    expect(handled(order.orderNo)).toHaveLength(0);
    const status = await wired.merchant(MERCHANT_PATHS.status, { country: 'EG', reference: order.reference });
    expect(status.data.status).toBe('SUCCESS');

    const resent = await wired.sandboxControl.resendCallback(delivery.notifyId);
    expect(resent).toMatchObject({ trigger: 'resend', status: 200, acknowledged: true });
    expect(resent.headers['Authorization']).toMatch(/^[0-9a-f]{128}$/);
    expect(handled(order.orderNo)).toHaveLength(1);
    expect((await wired.sandboxControl.resendCallback(delivery.notifyId)).answer).toContain('"duplicate":true');
    expect(handled(order.orderNo)).toHaveLength(1);
    expect((await wired.sandboxControl.deliveries({ orderNo: order.orderNo }))[0]!.state).toBe('acknowledged');
  });

  it.each([
    ['badSignature', {}, 401, 'bad-signature'],
    ['staleTimestamp', {}, 401, 'stale-timestamp'],
    ['tamper', { field: 'amount.total' }, 401, 'bad-signature'],
    ['tamper', { field: 'status' }, 401, 'bad-signature'],
    ['invalidBody', {}, 400, 'breaks the specification'],
  ] as const)('%s %o: refused with %i, then the retry is handled once, with the true body', async (kind, extra, status, why) => {
    wired = await wire();
    const order = await posOrder();
    await faultFor(order, { kind, ...extra });
    await paid(order);
    const refused = await deliveryOf(order.orderNo, (item) => item.attempts.length === 1 && item.state === 'waiting');
    expect(refused.attempts[0]).toMatchObject({ fault: kind, status, acknowledged: false });
    expect(refused.attempts[0]!.answer).toContain(why);
    expect(handled(order.orderNo)).toHaveLength(0);
    await pastFirstRetry();
    const delivered = await deliveryOf(order.orderNo, (item) => item.state === 'acknowledged');
    expect(delivered.attempts.map((attempt) => attempt.status)).toEqual([status, 200]);
    expect(delivered.attempts[1]!.fault).toBeUndefined();
    const events = handled(order.orderNo);
    expect(events).toHaveLength(1);
    expect(events[0]!.body).toMatchObject({ status: 'SUCCESS', amount: { total: 12_500 }, reference: order.reference });
  });

  it('tamper records what it changed; the body sent differs from the one signed', async () => {
    wired = await wire();
    const order = await posOrder();
    await faultFor(order, { kind: 'tamper' });
    await paid(order);
    const delivery = await deliveryOf(order.orderNo, (item) => item.attempts.length === 1 && item.state === 'waiting');
    expect(delivery.attempts[0]!.note).toBe('amount.total changed from 12500 to 12600 after signing');
    expect(JSON.parse(delivery.attempts[0]!.body)).toMatchObject({ amount: { total: 12_600 } });
  });

  it('outOfOrder: held back until the next callback was sent; the kit handles both, in the order they came', async () => {
    wired = await wire();
    const first = await posOrder();
    const second = await posOrder();
    await faultFor(first, { kind: 'outOfOrder' });
    await paid(first);
    await deliveryOf(first.orderNo, (item) => item.state === 'held');
    await paid(second);
    await deliveryOf(first.orderNo, (item) => item.state === 'acknowledged');
    await deliveryOf(second.orderNo, (item) => item.state === 'acknowledged');
    expect(wired.callbacks.map((event) => event.body.orderNo)).toEqual([second.orderNo, first.orderNo]);
    expect(new Set(wired.callbacks.map((event) => event.notifyId)).size).toBe(2);
  });

  it('outOfOrder with nothing after it: sent anyway after 10 sandbox minutes', async () => {
    wired = await wire();
    const order = await posOrder();
    await faultFor(order, { kind: 'outOfOrder' });
    await paid(order);
    await deliveryOf(order.orderNo, (item) => item.state === 'held');
    await wired.sandboxControl.advanceClock(10);
    await deliveryOf(order.orderNo, (item) => item.state === 'acknowledged');
    expect(handled(order.orderNo)).toHaveLength(1);
  });

  it('replay: the exact bytes and headers again later are a duplicate to the kit; handled once', async () => {
    wired = await wire();
    const order = await posOrder();
    await faultFor(order, { kind: 'replay', afterMinutes: 5 });
    await paid(order);
    const sent = await deliveryOf(order.orderNo, (item) => item.state === 'acknowledged');
    expect(sent.attempts).toHaveLength(1);
    await wired.sandboxControl.advanceClock(5);
    const replayed = await deliveryOf(order.orderNo, (item) => item.attempts.length === 2 && item.attempts[1]!.status !== null);
    const [original, copy] = replayed.attempts;
    expect(copy).toMatchObject({ trigger: 'replay', fault: 'replay', status: 200 });
    expect(copy!.headers).toEqual(original!.headers);
    expect(copy!.body).toBe(original!.body);
    expect(copy!.answer).toContain('"duplicate":true');
    expect(handled(order.orderNo)).toHaveLength(1);
  });

  it('a replay on request, once the kit’s clock has moved past its tolerance, is refused as stale', async () => {
    let sandbox: Sandbox | undefined;
    // The kit's clock follows the sandbox's, so that sandbox minutes are minutes to the kit too.
    wired = await wire({ handler: { now: () => sandbox?.clock.now() ?? Date.now() } });
    sandbox = wired.sandbox;
    const order = await posOrder();
    await paid(order);
    const sent = await deliveryOf(order.orderNo, (item) => item.state === 'acknowledged');
    await wired.sandboxControl.advanceClock(10);
    const replay = await wired.sandboxControl.replayCallback(sent.notifyId);
    expect(replay).toMatchObject({ trigger: 'replay', status: 401 });
    expect(replay.answer).toContain('stale-timestamp');
    expect(handled(order.orderNo)).toHaveLength(1);
  });

  it('counts: a fault for any order meets the next N deliveries, whatever their order, then none', async () => {
    wired = await wire();
    const orders = [await posOrder(), await posOrder(), await posOrder()];
    await wired.sandboxControl.addDeliveryFault({ kind: 'badSignature', count: 2 });
    expect(await wired.sandboxControl.deliveryFaults()).toMatchObject([{ kind: 'badSignature', remaining: 2 }]);
    for (const order of orders) {
      await paid(order);
      await deliveryOf(order.orderNo, (item) => item.attempts.length === 1 && item.attempts[0]!.status !== null);
    }
    const statuses = await Promise.all(orders.map(async (order) => (await wired!.sandboxControl.deliveries({ orderNo: order.orderNo }))[0]!.attempts[0]!.status));
    expect(statuses).toEqual([401, 401, 200]);
    expect(await wired.sandboxControl.deliveryFaults()).toEqual([]);
  });

  it('a fault for one order leaves the others alone, and can be removed before it meets anything', async () => {
    wired = await wire();
    const mine = await posOrder();
    const other = await posOrder();
    const kept = await wired.sandboxControl.addDeliveryFault({ kind: 'omit', orderNo: mine.orderNo });
    const removed = await wired.sandboxControl.addDeliveryFault({ kind: 'badSignature', count: 5 });
    expect(await wired.sandboxControl.removeDeliveryFault(removed.id)).toMatchObject([{ id: kept.id }]);
    await paid(other);
    await paid(mine);
    await deliveryOf(other.orderNo, (item) => item.state === 'acknowledged');
    await deliveryOf(mine.orderNo, (item) => item.state === 'omitted');
  });

  it('refuses a bad delivery fault with 400 naming each field', async () => {
    wired = await wire();
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ['kind']],
      [{ kind: 'lose' }, ['kind']],
      [{ kind: 'omit', count: 0 }, ['count']],
      [{ kind: 'omit', field: 'status' }, ['field']],
      [{ kind: 'tamper', field: 'notifyId' }, ['field']],
      [{ kind: 'duplicate', afterMinutes: 3 }, ['afterMinutes']],
      [{ kind: 'omit', orderNo: '1', reference: 'r-1' }, ['reference']],
      [{ kind: 'omit', refrence: 'typo' }, ['refrence']],
      [{ kind: 'omit', merchantId: '999' }, ['merchantId']],
    ];
    for (const [body, fields] of cases) {
      const answer = await wired.control('POST', '/sandbox/v1/delivery-faults', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.errors.map((error: { field: string }) => error.field), JSON.stringify(body)).toEqual(fields);
    }
    expect(await wired.sandboxControl.deliveryFaults()).toEqual([]);
    expect(DELIVERY_FAULT_KINDS).toEqual(['duplicate', 'omit', 'badSignature', 'tamper', 'staleTimestamp', 'invalidBody', 'outOfOrder', 'replay']);
  });

  it('answers 404 for a re-send or replay of an unknown callback, and 409 for a replay of one never sent', async () => {
    wired = await wire();
    expect((await wired.control('POST', '/sandbox/v1/callbacks/nope/resend')).status).toBe(404);
    expect((await wired.control('POST', '/sandbox/v1/callbacks/nope/replay')).status).toBe(404);
    const order = await posOrder();
    await faultFor(order, { kind: 'omit' });
    await paid(order);
    const delivery = await deliveryOf(order.orderNo, (item) => item.state === 'omitted');
    const replay = await wired.control('POST', `/sandbox/v1/callbacks/${delivery.notifyId}/replay`);
    expect(replay.status).toBe(409);
    expect(replay.body.message).toContain('never sent');
  });
});
