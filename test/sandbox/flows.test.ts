// Every method and every outcome, end to end: the merchant kit's handler (as the element calls it) and its
// ServiceClient against the sandbox, with the sandbox's callbacks verified by the kit.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MERCHANT_PATHS } from '../../src/core/index.js';
import { STATUS_SHARED_MS } from '../../src/server/index.js';
import { testValues } from '../../src/sandbox/index.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { eventually, wire, type Wired } from '../support/sandbox-fixture.js';

let wired: Wired;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;

beforeAll(async () => {
  // Every order of the file comes from one client address: past the per-client limit of creates.
  wired = await wire({ handler: { limits: { createsPerClient: false } } });
});
afterAll(() => wired.close());
beforeEach(async () => {
  await wired.control('POST', '/sandbox/v1/reset');
  wired.callbacks.length = 0;
});

async function create(body: Record<string, unknown>) {
  const envelope = await wired.merchant(MERCHANT_PATHS.create, body);
  expect(envelope.code, JSON.stringify(envelope)).toBe('00000');
  return envelope.data;
}

async function statusOf(reference: string) {
  return (await wired.merchant(MERCHANT_PATHS.status, { country: 'EG', reference })).data;
}

/** Sends one of the 3-D Secure page's forms as the payer's browser would: to its action, with its hidden fields. */
async function submitForm(html: string, decision: 'approve' | 'decline', pageUrl: string) {
  const form = new RegExp(`<form method="post" action="([^"]*${decision})">(.*?)<button`, 's').exec(html)!;
  const fields = new URLSearchParams([...form[2]!.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((match) => [match[1]!, match[2]!]));
  return fetch(new URL(form[1]!, pageUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
    redirect: 'manual',
  });
}

function callbackFor(orderNo: string) {
  return eventually(`the callback of ${orderNo}`, () => wired.callbacks.find((event) => event.body.orderNo === orderNo));
}

describe('Pos', () => {
  it('asks for a swipe, succeeds when the card is swiped, and calls back', async () => {
    const reference = unique('pos');
    const order = await create(posRequest({ reference }));
    expect(order).toMatchObject({ reference, status: 'PENDING', nextAction: { actionType: 'SWIPE_CARD' }, amount: { total: 12_500, currency: 'EGP' } });
    expect(order.vat).toEqual({ total: 1535, currency: 'EGP' });
    expect(order.orderNo).toMatch(/^\d{14}$/);
    const swiped = await wired.control('POST', `/sandbox/v1/pos/${testValues.TEST_POS_SERIAL}/swipe`, { outcome: 'success' });
    expect(swiped.body.status).toBe('SUCCESS');
    const callback = await callbackFor(order.orderNo);
    expect(callback.body).toMatchObject({ reference, status: 'SUCCESS', type: 'MACQUIRING_CALLBACK', country: 'EG', amount: { total: 12_500 } });
    expect(await statusOf(reference)).toMatchObject({ status: 'SUCCESS', failureReason: null, silence: 'Y', vat: { rate: 14, currencySymbo: 'E£' } });
  });

  it('fails with a failure code and reason when the card is declined', async () => {
    const order = await create(posRequest({ reference: unique('pos') }));
    await wired.control('POST', `/sandbox/v1/pos/${testValues.TEST_POS_SERIAL}/swipe`, { outcome: 'fail' });
    const callback = await callbackFor(order.orderNo);
    expect(callback.body).toMatchObject({ status: 'FAIL', failureCode: 'CARD_DECLINED', failureReason: 'The card was declined by its issuer.' });
  });

  it('pays the latest order waiting at the swiped terminal, then the one before it, and no other terminal\'s', async () => {
    const [first, second, elsewhere] = [
      await create(posRequest({ reference: unique('pos'), sn: 'SN-COUNTER-1' })),
      await create(posRequest({ reference: unique('pos'), sn: 'SN-COUNTER-1' })),
      await create(posRequest({ reference: unique('pos'), sn: 'SN-COUNTER-2' })),
    ];
    const swipe = () => wired.control('POST', '/sandbox/v1/pos/SN-COUNTER-1/swipe', { outcome: 'success' });
    expect((await swipe()).body).toMatchObject({ orderNo: second.orderNo, status: 'SUCCESS' });
    expect((await swipe()).body).toMatchObject({ orderNo: first.orderNo, status: 'SUCCESS' });
    expect((await swipe()).status).toBe(404);
    expect(await statusOf(elsewhere.reference)).toMatchObject({ status: 'PENDING' });
    // Settled at a place other than the terminal (its expiry), an order no longer waits there.
    await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: 30 });
    expect((await wired.control('POST', '/sandbox/v1/pos/SN-COUNTER-2/swipe', {})).status).toBe(404);
  });

  it('closes when expireAt passes on the sandbox clock', async () => {
    const reference = unique('pos');
    const order = await create(posRequest({ reference, expireAt: 5 }));
    await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: 4 });
    expect((await statusOf(reference)).status).toBe('PENDING');
    await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: 1 });
    // The kit answers queries of one order within a second of each other with one answer (docs/limits.md).
    await new Promise((resolve) => setTimeout(resolve, STATUS_SHARED_MS));
    expect(await statusOf(reference)).toMatchObject({ status: 'CLOSE', failureCode: 'ORDER_EXPIRED' });
    expect((await callbackFor(order.orderNo)).body.status).toBe('CLOSE');
    const late = await wired.control('POST', `/sandbox/v1/pos/${testValues.TEST_POS_SERIAL}/swipe`, {});
    expect(late.status).toBe(404);
  });
});

describe('BankAccount', () => {
  it('succeeds with the published test account and OTP', async () => {
    const reference = unique('bank');
    const order = await create(bankAccountRequest({ reference, bankAccountNumber: '2215381176' }));
    expect(order.nextAction).toEqual({ actionType: 'INPUT_OTP' });
    const sms = (await wired.control('GET', `/sandbox/v1/notifications?orderNo=${order.orderNo}`)).body.notifications;
    expect(sms[0]).toMatchObject({ channel: 'SMS', text: 'Your verification code is 11315632.', to: 'account ••••1176' });
    const answer = await wired.merchant(MERCHANT_PATHS.otp, { country: 'EG', orderNo: order.orderNo, otp: testValues.TEST_OTP });
    expect(answer.data.status).toBe('SUCCESS');
    expect((await callbackFor(order.orderNo)).body.status).toBe('SUCCESS');
  });

  it('fails with the published failing account after the OTP', async () => {
    const order = await create(bankAccountRequest({ reference: unique('bank'), bankAccountNumber: '2215381190' }));
    const answer = await wired.merchant(MERCHANT_PATHS.otp, { country: 'EG', orderNo: order.orderNo, otp: testValues.TEST_OTP });
    expect(answer.data).toMatchObject({ status: 'FAIL', failureCode: 'INSUFFICIENT_FUNDS' });
    expect((await callbackFor(order.orderNo)).body.failureCode).toBe('INSUFFICIENT_FUNDS');
  });

  it('accepts the OTP on the create path too, with reference in place of orderNo', async () => {
    const reference = unique('bank');
    await create(bankAccountRequest({ reference }));
    const answer = await wired.client.send('create', { country: 'EG', reference, otp: testValues.TEST_OTP });
    expect(answer).toMatchObject({ code: '00000', data: { status: 'SUCCESS' } });
  });

  it('names the OTP field when it is wrong, and fails the order after three wrong codes', async () => {
    const order = await create(bankAccountRequest({ reference: unique('bank') }));
    const wrong = () => wired.merchant(MERCHANT_PATHS.otp, { country: 'EG', orderNo: order.orderNo, otp: '00000000' });
    const first = await wrong();
    expect(first.code).toBe('02001');
    expect(first.data.errors[0]).toMatchObject({ field: 'otp', rule: 'mismatch' });
    expect(first.data.errors[0].message).toContain('2 attempts left');
    expect((await wrong()).data.errors[0].message).toContain('1 attempt left');
    expect((await wrong()).data).toMatchObject({ status: 'FAIL', failureCode: 'AUTH_ATTEMPTS_EXCEEDED' });
  });

  it('sends the OTP again, a limited number of times', async () => {
    const order = await create(bankAccountRequest({ reference: unique('bank') }));
    // Straight to the sandbox: the kit in front of it allows one resend every 30 s.
    for (let time = 0; time < testValues.MAX_OTP_RESENDS; time++) {
      expect((await wired.client.resendOtp({ country: 'EG', orderNo: order.orderNo })).code).toBe('00000');
    }
    const refused = (await wired.client.resendOtp({ country: 'EG', orderNo: order.orderNo })) as unknown as { data: { errors: unknown[] } };
    expect(refused.data.errors[0]).toMatchObject({ field: 'orderNo', rule: 'limit' });
    const sent = (await wired.control('GET', `/sandbox/v1/notifications?orderNo=${order.orderNo}`)).body.notifications;
    expect(sent).toHaveLength(1 + testValues.MAX_OTP_RESENDS);
  });

  it('asks for a PIN with the PIN accounts: success and failure', async () => {
    const good = await create(bankAccountRequest({ reference: unique('pin'), bankAccountNumber: '2215381183' }));
    expect(good.nextAction.actionType).toBe('INPUT_PIN');
    expect((await wired.merchant(MERCHANT_PATHS.pin, { country: 'EG', orderNo: good.orderNo, pin: testValues.TEST_PIN })).data.status).toBe('SUCCESS');
    const bad = await create(bankAccountRequest({ reference: unique('pin'), bankAccountNumber: '2215381197' }));
    expect((await wired.merchant(MERCHANT_PATHS.pin, { country: 'EG', orderNo: bad.orderNo, pin: testValues.TEST_PIN })).data.status).toBe('FAIL');
    const otpForPin = await wired.merchant(MERCHANT_PATHS.otp, { country: 'EG', orderNo: good.orderNo, otp: testValues.TEST_OTP });
    expect(otpForPin).toMatchObject({ code: '00000', data: { status: 'SUCCESS' } });
  });

  it('refuses an OTP for an order that waits for a PIN', async () => {
    const order = await create(bankAccountRequest({ reference: unique('pin'), bankAccountNumber: '2215381183' }));
    const answer = await wired.merchant(MERCHANT_PATHS.otp, { country: 'EG', orderNo: order.orderNo, otp: testValues.TEST_OTP });
    expect(answer.data.errors[0]).toMatchObject({ field: 'orderNo', rule: 'state' });
  });

  it('redirects to a 3-D Secure page whose Approve returns the payer to returnUrl', async () => {
    const returnUrl = 'https://shop.example/checkout/return?step=3ds';
    const order = await create(bankAccountRequest({ reference: unique('3ds'), bankAccountNumber: '2215381200', returnUrl }));
    expect(order.nextAction.actionType).toBe('REDIRECT_3DS');
    const page = await fetch(order.nextAction.redirectUrl);
    const html = await page.text();
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(html).toContain('Approve');
    expect(html).toContain('Decline');
    const decided = await submitForm(html, 'approve', order.nextAction.redirectUrl);
    expect(decided.status).toBe(303);
    expect(decided.headers.get('location')).toBe(returnUrl);
    expect((await callbackFor(order.orderNo)).body.status).toBe('SUCCESS');
  });

  it('sends the payer back to a return path beyond ASCII percent-encoded, on Approve, Decline and Continue after either', async () => {
    for (const [returnUrl, decision] of [
      ['https://shop.example/ادفع/طلب-٧?ملاحظة=شكرا#تم', 'approve'],
      ['https://shop.example/café/reçu?nom=Zoë', 'decline'],
      ['https://shop.example/支付/完成', 'approve'],
    ] as const) {
      const order = await create(bankAccountRequest({ reference: unique('3ds'), bankAccountNumber: '2215381200', returnUrl }));
      const page = order.nextAction.redirectUrl;
      const decided = await submitForm(await (await fetch(page)).text(), decision, page);
      expect(decided.status, returnUrl).toBe(303);
      const location = decided.headers.get('location')!;
      // Every byte of the header ASCII, and the same address once read back.
      expect(location, returnUrl).toMatch(/^[\x21-\x7e]+$/);
      expect(location).toBe(new URL(returnUrl).href);
      expect(decodeURIComponent(new URL(location).pathname)).toBe(decodeURIComponent(new URL(returnUrl).pathname));
      expect((await callbackFor(order.orderNo)).body.status).toBe(decision === 'approve' ? 'SUCCESS' : 'FAIL');
      // The order is settled: the page now offers Continue, which sends the payer back the same way.
      const again = await submitForm(await (await fetch(page)).text(), 'approve', page);
      expect(again.status).toBe(303);
      expect(again.headers.get('location')).toBe(location);
    }
  });

  it('fails when the payer declines 3-D Secure', async () => {
    const order = await create(bankAccountRequest({ reference: unique('3ds'), bankAccountNumber: '2215381200' }));
    const html = await (await fetch(order.nextAction.redirectUrl)).text();
    await submitForm(html, 'decline', order.nextAction.redirectUrl);
    expect((await callbackFor(order.orderNo)).body).toMatchObject({ status: 'FAIL', failureCode: '3DS_DECLINED' });
  });

  it('treats an account number that names an object property like any other account', async () => {
    for (const account of ['constructor', 'toString', 'valueOf']) {
      const order = await create(bankAccountRequest({ reference: unique('proto'), bankAccountNumber: account, dobDay: '01' }));
      expect(order.nextAction).toEqual({ actionType: 'INPUT_OTP' });
    }
  });

  it('fails at create for the blocked account, and still calls back', async () => {
    const order = await create(bankAccountRequest({ reference: unique('bank'), bankAccountNumber: '2215381207' }));
    expect(order).toMatchObject({ status: 'FAIL', failureCode: 'ACCOUNT_BLOCKED' });
    expect(order.nextAction).toBeUndefined();
    expect((await callbackFor(order.orderNo)).body.status).toBe('FAIL');
  });
});

describe('ReferenceCode', () => {
  it('returns a unique 9-digit code, notifies in the chosen language and channel, and succeeds when paid', async () => {
    const reference = unique('code');
    const order = await create(referenceCodeRequest({ reference, expireAt: '60' }, { notifyLanguage: 'Arabic', notifyMethod: 'BOTH' }));
    expect(order.referenceCode).toMatch(/^\d{9}$/);
    expect(order.vat).toBeUndefined();
    const other = await create(referenceCodeRequest({ reference: unique('code') }));
    expect(other.referenceCode).not.toBe(order.referenceCode);
    const sent = (await wired.control('GET', `/sandbox/v1/notifications?orderNo=${order.orderNo}`)).body.notifications;
    expect(sent.map((message: { channel: string }) => message.channel).sort()).toEqual(['EMAIL', 'SMS']);
    for (const message of sent) {
      expect(message.language).toBe('Arabic');
      expect(message.text).toMatch(/[\u0600-\u06ff]/);
      expect(message.text).toContain(order.referenceCode.replace(/(\d{3})(?=\d)/g, '$1 '));
    }
    const paid = await wired.control('POST', `/sandbox/v1/reference-codes/${order.referenceCode}/pay`);
    expect(paid.body.status).toBe('SUCCESS');
    expect((await callbackFor(order.orderNo)).body).toMatchObject({ status: 'SUCCESS', extras: { referenceCode: order.referenceCode } });
    expect((await wired.control('POST', `/sandbox/v1/reference-codes/${order.referenceCode}/pay`)).status).toBe(409);
  });

  it('notifies only through the method chosen, in English', async () => {
    const order = await create(referenceCodeRequest({ reference: unique('code') }, { notifyMethod: 'EMAIL', notifyUserMobile: undefined }));
    const sent = (await wired.control('GET', `/sandbox/v1/notifications?orderNo=${order.orderNo}`)).body.notifications;
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ channel: 'EMAIL', language: 'English', to: 'mona@example.com' });
    expect(sent[0].text).toContain('use reference code');
  });

  it('closes at its expiry, and can no longer be paid', async () => {
    const reference = unique('code');
    const order = await create(referenceCodeRequest({ reference, expireAt: 30 }));
    await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: 30 });
    expect((await callbackFor(order.orderNo)).body.status).toBe('CLOSE');
    expect((await wired.control('POST', `/sandbox/v1/reference-codes/${order.referenceCode}/pay`)).status).toBe(409);
  });

  it('fails when the test completes it as FAIL with a code and reason', async () => {
    const order = await create(referenceCodeRequest({ reference: unique('code') }));
    await wired.control('POST', `/sandbox/v1/orders/${order.orderNo}/complete`, { status: 'FAIL', failureCode: 'X1', failureReason: 'Because.' });
    expect((await callbackFor(order.orderNo)).body).toMatchObject({ status: 'FAIL', failureCode: 'X1', failureReason: 'Because.' });
    const again = await wired.control('POST', `/sandbox/v1/orders/${order.orderNo}/complete`, { status: 'SUCCESS' });
    expect(again.status).toBe(409);
  });
});

describe('refunds', () => {
  it('refunds a paid order: INITIAL, PENDING a sandbox minute later, SUCCESS at two; 4040 fails; over-refunds are refused', async () => {
    const reference = unique('paid');
    const order = await create(posRequest({ reference }));
    await wired.control('POST', `/sandbox/v1/orders/${order.orderNo}/complete`, { status: 'SUCCESS' });
    const refund = { amount: { total: 5000, currency: 'EGP' }, country: 'EG', originalReference: reference, refundWay: 'Original' as const };
    const created = await wired.client.createRefund({ ...refund, reference: unique('refund') });
    expect(created.data).toMatchObject({ orderStatus: 'INITIAL', originalOrderNo: order.orderNo, originalReference: reference });
    const failing = await wired.client.createRefund({ ...refund, amount: { total: 4040, currency: 'EGP' }, reference: unique('refund') });
    expect(failing.code).toBe('00000');
    const tooMuch = await wired.client.createRefund({ ...refund, amount: { total: 5000, currency: 'EGP' }, reference: unique('refund') });
    expect(tooMuch.data).toMatchObject({ errors: [{ field: 'amount.total', rule: 'max' }] });
    const query = (answer: typeof created) => wired.client.queryRefund({ country: 'EG', reference: (answer.data as { reference: string }).reference });
    await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: 1 });
    expect((await query(created)).data).toMatchObject({ orderStatus: 'PENDING' });
    await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: 1 });
    expect((await query(created)).data).toMatchObject({ orderStatus: 'SUCCESS' });
    expect((await query(failing)).data).toMatchObject({ orderStatus: 'FAIL', errorCode: 'REFUND_REJECTED' });
  });

  it('gives back what a failed refund had reserved', async () => {
    const reference = unique('paid');
    const order = await create(posRequest({ reference, amount: { total: 10_000, currency: 'EGP' } }));
    await wired.control('POST', `/sandbox/v1/orders/${order.orderNo}/complete`, { status: 'SUCCESS' });
    const refund = { country: 'EG', originalReference: reference, refundWay: 'Original' as const };
    await wired.client.createRefund({ ...refund, amount: { total: 4040, currency: 'EGP' }, reference: unique('refund') });
    await wired.control('POST', '/sandbox/v1/clock/advance', { minutes: 2 });
    const whole = await wired.client.createRefund({ ...refund, amount: { total: 10_000, currency: 'EGP' }, reference: unique('refund') });
    expect(whole.code).toBe('00000');
  });

  it('refuses to refund an order that was not paid', async () => {
    const reference = unique('unpaid');
    await create(posRequest({ reference }));
    const answer = await wired.client.createRefund({
      amount: { total: 100, currency: 'EGP' },
      country: 'EG',
      originalReference: reference,
      reference: unique('refund'),
      refundWay: 'BankAccount',
    });
    expect(answer.data).toMatchObject({ errors: [{ field: 'originalReference', rule: 'state' }] });
  });
});

describe('concurrency', () => {
  it('lets exactly one of many simultaneous creates with the same reference succeed', async () => {
    const reference = unique('race');
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        wired.client.createPayment(index % 2 ? (posRequest({ reference }) as never) : (bankAccountRequest({ reference }) as never)),
      ),
    );
    expect(answers.filter((answer) => answer.code === '00000')).toHaveLength(1);
    expect(answers.filter((answer) => answer.code === '02004')).toHaveLength(24);
  });
});
