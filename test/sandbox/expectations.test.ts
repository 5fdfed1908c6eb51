// Expectations by reference: told before or after the create, an order (or refund) does what it was told —
// its next action, its outcome and failure, after so many sandbox minutes — once; the test values stay.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS } from '../../src/core/index.js';
import { testValues } from '../../src/sandbox/index.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { eventually, wire, type Wired } from '../support/sandbox-fixture.js';

let wired: Wired;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

beforeAll(async () => {
  wired = await wire();
});
afterAll(() => wired.close());
beforeEach(async () => {
  await wired.sandboxControl.reset();
  wired.callbacks.length = 0;
});

async function create(body: Record<string, unknown>) {
  const envelope = await wired.merchant(MERCHANT_PATHS.create, body);
  expect(envelope.code, JSON.stringify(envelope)).toBe('00000');
  return envelope.data;
}

const minutesBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 60_000;

describe('expectations told before the create', () => {
  it('gives a bank account order the next action and the failure it names, once', async () => {
    const reference = unique('pin-fail');
    const expectation = await wired.sandboxControl.expect({ reference, nextAction: 'INPUT_PIN', outcome: 'FAIL', failureCode: 'DO_NOT_HONOUR' });
    expect(expectation).toMatchObject({ id: expect.stringMatching(/^e\d+$/), target: 'payment', state: 'waiting' });
    // 2215381176 is the account that asks for an OTP and succeeds: the expectation wins in what it names.
    const order = await create(bankAccountRequest({ reference }));
    expect(order.nextAction.actionType).toBe('INPUT_PIN');
    expect((await wired.sandboxControl.notifications({ orderNo: order.orderNo }))).toEqual([]);
    const answer = await wired.merchant(MERCHANT_PATHS.pin, { country: 'EG', orderNo: order.orderNo, pin: testValues.TEST_PIN });
    expect(answer.data).toMatchObject({ status: 'FAIL', failureCode: 'DO_NOT_HONOUR', failureReason: 'The payment failed.' });
    const callback = await eventually('the callback', () => wired.callbacks.find((event) => event.body.orderNo === order.orderNo));
    expect(callback.body).toMatchObject({ status: 'FAIL', failureCode: 'DO_NOT_HONOUR' });
    expect(await wired.sandboxControl.expectations()).toMatchObject([{ id: expectation.id, state: 'done', orderNo: order.orderNo }]);

    // Happened once: another order of the same account is as the test values say.
    const next = await create(bankAccountRequest({ reference: unique('plain') }));
    expect(next.nextAction.actionType).toBe('INPUT_OTP');
  });

  it('sends a bank account payer to 3-D Secure, where Decline fails the order with 3DS_DECLINED', async () => {
    const reference = unique('tds');
    await wired.sandboxControl.expect({ reference, nextAction: 'REDIRECT_3DS' });
    const order = await create(bankAccountRequest({ reference, bankCode: '044', bankAccountNumber: '0123456789' }));
    expect(order.nextAction).toMatchObject({ actionType: 'REDIRECT_3DS', redirectUrl: expect.stringContaining(`/sandbox/3ds/${order.orderNo}`) });
    await wired.sandboxControl.threeDs(order.orderNo, 'decline');
    expect(await wired.sandboxControl.order(order.orderNo)).toMatchObject({ status: 'FAIL', failureCode: '3DS_DECLINED' });
  });

  it('settles an order on its own, late, after the minutes it names: paid 20 minutes after create', async () => {
    const reference = unique('late');
    const expectation = await wired.sandboxControl.expect({ reference, outcome: 'SUCCESS', afterMinutes: 20 });
    const order = await create(referenceCodeRequest({ reference, expireAt: 60 }));
    await wired.sandboxControl.advanceClock(19);
    expect((await wired.sandboxControl.order(order.orderNo)).status).toBe('PENDING');
    await wired.sandboxControl.advanceClock(2);
    const view = await wired.sandboxControl.order(order.orderNo);
    expect(view.status).toBe('SUCCESS');
    // Stamped with the moment it fell due, not when the clock was looked at.
    expect(minutesBetween(view.createdAt, view.updatedAt)).toBeCloseTo(20, 1);
    expect(view.life.map((entry) => entry.what)).toContain(`settled by expectation ${expectation.id}`);
    const callback = await eventually('the late callback', () => wired.callbacks.find((event) => event.body.orderNo === order.orderNo));
    expect(callback.body.status).toBe('SUCCESS');
  });

  it('fails an order at create when its minutes are 0', async () => {
    const reference = unique('at-once');
    await wired.sandboxControl.expect({ reference, outcome: 'CLOSE', afterMinutes: 0 });
    const order = await create(posRequest({ reference }));
    expect(order).toMatchObject({ status: 'CLOSE', failureCode: 'ORDER_CLOSED' });
    expect(order.nextAction).toBeUndefined();
  });

  it('comes too late when the order expires first', async () => {
    const reference = unique('too-late');
    await wired.sandboxControl.expect({ reference, outcome: 'SUCCESS', afterMinutes: 45 });
    const order = await create(posRequest({ reference, expireAt: 30 }));
    await wired.sandboxControl.advanceClock(60);
    expect(await wired.sandboxControl.order(order.orderNo)).toMatchObject({ status: 'CLOSE', failureCode: 'ORDER_EXPIRED' });
    expect((await wired.sandboxControl.expectations())[0]).toMatchObject({ state: 'done', note: expect.stringContaining('ended CLOSE') });
  });

  it("gives the outcome of the payer's step: a swipe, a paid reference code, an approved 3-D Secure check", async () => {
    const swipe = unique('swipe');
    await wired.sandboxControl.expect({ reference: swipe, outcome: 'FAIL', failureCode: 'CARD_EXPIRED', failureReason: 'The card has expired.' });
    await create(posRequest({ reference: swipe, sn: 'SN-EXPECT' }));
    expect(await wired.sandboxControl.swipe('SN-EXPECT')).toMatchObject({ status: 'FAIL', failureCode: 'CARD_EXPIRED', failureReason: 'The card has expired.' });

    const code = unique('code');
    await wired.sandboxControl.expect({ reference: code, outcome: 'FAIL' });
    const coded = await create(referenceCodeRequest({ reference: code }));
    expect(await wired.sandboxControl.payReferenceCode(coded.referenceCode)).toMatchObject({ status: 'FAIL', failureCode: 'PAYMENT_FAILED' });

    // 2215381200 approves; the expectation says otherwise.
    const tds = unique('tds-approve');
    await wired.sandboxControl.expect({ reference: tds, outcome: 'FAIL', failureCode: 'ISSUER_UNAVAILABLE' });
    const redirected = await create(bankAccountRequest({ reference: tds, bankAccountNumber: '2215381200' }));
    await wired.sandboxControl.threeDs(redirected.orderNo, 'approve');
    expect(await wired.sandboxControl.order(redirected.orderNo)).toMatchObject({ status: 'FAIL', failureCode: 'ISSUER_UNAVAILABLE' });
  });

  it('wins over an account that fails at create, when it names how the order ends', async () => {
    const reference = unique('blocked');
    const expectation = await wired.sandboxControl.expect({ reference, outcome: 'SUCCESS', afterMinutes: 3 });
    const order = await create(bankAccountRequest({ reference, bankAccountNumber: '2215381207' }));
    expect(order).toMatchObject({ status: 'PENDING', nextAction: { actionType: 'INPUT_OTP' } });
    await wired.sandboxControl.advanceClock(3);
    expect((await wired.sandboxControl.order(order.orderNo)).status).toBe('SUCCESS');
    expect((await wired.sandboxControl.expectations()).find((item) => item.id === expectation.id)?.state).toBe('done');
  });

  it('ignores a next action for an order that is not a bank account payment, and says so', async () => {
    const reference = unique('pos-pin');
    await wired.sandboxControl.expect({ reference, nextAction: 'INPUT_PIN' });
    const order = await create(posRequest({ reference }));
    expect(order.nextAction.actionType).toBe('SWIPE_CARD');
    expect((await wired.sandboxControl.expectations())[0]!.note).toContain('nextAction ignored');
  });

  it('waits for the merchant it names', async () => {
    const reference = unique('other-merchant');
    const answer = await wired.control('POST', '/sandbox/v1/expectations', { reference, outcome: 'FAIL', merchantId: '42' });
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toMatchObject([{ field: 'merchantId' }]);
  });
});

describe('expectations told after the create', () => {
  it('apply at once to the pending order: fails 5 sandbox minutes from now', async () => {
    const reference = unique('after');
    const order = await create(posRequest({ reference }));
    const expectation = await wired.sandboxControl.expect({ reference, outcome: 'FAIL', failureCode: 'LIMIT_EXCEEDED', afterMinutes: 5 });
    expect(expectation).toMatchObject({ state: 'applied', orderNo: order.orderNo });
    expect((await wired.sandboxControl.order(order.orderNo)).plan).toMatchObject({ status: 'FAIL', expectationId: expectation.id });
    await wired.sandboxControl.advanceClock(5);
    expect(await wired.sandboxControl.order(order.orderNo)).toMatchObject({ status: 'FAIL', failureCode: 'LIMIT_EXCEEDED' });
  });

  it('refuse a next action (decided at create) and an order that has ended, with 409', async () => {
    const reference = unique('decided');
    const order = await create(bankAccountRequest({ reference }));
    const late = await wired.control('POST', '/sandbox/v1/expectations', { reference, nextAction: 'INPUT_PIN' });
    expect(late.status).toBe(409);
    expect(late.body.message).toContain('nextAction');
    await wired.sandboxControl.complete(order.orderNo, { status: 'SUCCESS' });
    const ended = await wired.control('POST', '/sandbox/v1/expectations', { reference, outcome: 'FAIL' });
    expect(ended.status).toBe(409);
    expect(ended.body.message).toContain('already SUCCESS');
    expect(await wired.sandboxControl.expectations()).toEqual([]);
  });

  it('can be removed: the order goes back to what its test values say', async () => {
    const reference = unique('removed');
    const order = await create(posRequest({ reference, sn: 'SN-REMOVED' }));
    const expectation = await wired.sandboxControl.expect({ reference, outcome: 'FAIL' });
    expect(await wired.sandboxControl.removeExpectation(expectation.id)).toEqual([]);
    expect((await wired.sandboxControl.order(order.orderNo)).plan).toBeNull();
    expect((await wired.sandboxControl.swipe('SN-REMOVED')).status).toBe('SUCCESS');
    expect((await wired.control('DELETE', `/sandbox/v1/expectations/${expectation.id}`)).status).toBe(404);
  });
});

describe('refunds with a life', () => {
  async function paidOrder() {
    const reference = unique('paid');
    const order = await create(posRequest({ reference, amount: { total: 20_000, currency: 'EGP' } }));
    await wired.sandboxControl.complete(order.orderNo, { status: 'SUCCESS' });
    return reference;
  }
  const refund = (originalReference: string, reference: string, total: number) =>
    wired.client.createRefund({ amount: { total, currency: 'EGP' }, country: 'EG', originalReference, reference, refundWay: 'Original' });
  const query = async (reference: string) => (await wired.client.queryRefund({ country: 'EG', reference })).data;

  it('move INITIAL -> PENDING -> FAIL on the sandbox clock as an expectation told before says', async () => {
    const original = await paidOrder();
    const reference = unique('refund');
    await wired.sandboxControl.expect({ target: 'refund', reference, outcome: 'FAIL', failureCode: 'BENEFICIARY_BANK_DOWN', afterMinutes: 10 });
    expect((await refund(original, reference, 1_000)).data).toMatchObject({ orderStatus: 'INITIAL' });
    await wired.sandboxControl.advanceClock(1);
    expect(await query(reference)).toMatchObject({ orderStatus: 'PENDING' });
    await wired.sandboxControl.advanceClock(8);
    expect(await query(reference)).toMatchObject({ orderStatus: 'PENDING' });
    await wired.sandboxControl.advanceClock(1);
    expect(await query(reference)).toMatchObject({ orderStatus: 'FAIL', errorCode: 'BENEFICIARY_BANK_DOWN', errorMsg: 'The refund was rejected by the bank.' });
    const [view] = await wired.sandboxControl.refunds();
    expect(view!.life.map((entry) => entry.status).filter(Boolean)).toEqual(['INITIAL', 'PENDING', 'FAIL']);
  });

  it('follow their amount: 4041 fails with ACCOUNT_CLOSED, 4042 takes three days; an expectation after create changes the outcome', async () => {
    const original = await paidOrder();
    const closed = unique('refund');
    const slow = unique('refund');
    const changed = unique('refund');
    await refund(original, closed, 4041);
    await refund(original, slow, 4042);
    await refund(original, changed, 500);
    await wired.sandboxControl.expect({ target: 'refund', reference: changed, outcome: 'FAIL' });
    await wired.sandboxControl.advanceClock(2);
    expect(await query(closed)).toMatchObject({ orderStatus: 'FAIL', errorCode: 'ACCOUNT_CLOSED' });
    expect(await query(slow)).toMatchObject({ orderStatus: 'PENDING' });
    expect(await query(changed)).toMatchObject({ orderStatus: 'FAIL', errorCode: 'REFUND_REJECTED' });
    await wired.sandboxControl.advanceClock(3 * 24 * 60);
    expect(await query(slow)).toMatchObject({ orderStatus: 'SUCCESS' });
  });

  it('answer 02006 to a query of an unknown refund', async () => {
    expect((await wired.client.queryRefund({ country: 'EG', reference: 'no-such-refund' })).code).toBe('02006');
  });
});

describe('the expectation call', () => {
  it('refuses a bad body with 400 naming each field', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ['reference', 'outcome']],
      [{ reference: 'r 1', outcome: 'SUCCESS' }, ['reference']],
      [{ reference: 'r-1', outcome: 'PAID' }, ['outcome']],
      [{ reference: 'r-1', target: 'payout', outcome: 'SUCCESS' }, ['target']],
      [{ reference: 'r-1', target: 'refund', outcome: 'CLOSE' }, ['outcome']],
      [{ reference: 'r-1', target: 'refund', nextAction: 'INPUT_OTP' }, ['nextAction']],
      [{ reference: 'r-1', nextAction: 'SWIPE_CARD' }, ['nextAction']],
      [{ reference: 'r-1', outcome: 'SUCCESS', failureCode: 'X' }, ['failureCode']],
      [{ reference: 'r-1', afterMinutes: 5 }, ['outcome']],
      [{ reference: 'r-1', outcome: 'FAIL', afterMinutes: -1 }, ['afterMinutes']],
      [{ reference: 'r-1', outcome: 'FAIL', afterMinute: 5 }, ['afterMinute']],
    ];
    for (const [body, fields] of cases) {
      const answer = await wired.control('POST', '/sandbox/v1/expectations', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.errors.map((error: { field: string }) => error.field), JSON.stringify(body)).toEqual(fields);
    }
    expect(await wired.sandboxControl.expectations()).toEqual([]);
  });
});
