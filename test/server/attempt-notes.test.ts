/**
 * Which payment a checkout's attempt is (src/core/attempt-note.ts), kept by the kit in its checkout record and told to
 * another page of the same checkout (another tab): with the `ORDER_EXISTS` of a second create and with a status
 * answer proved by the checkout's token — the terminal's serial, the reference code (the service's status answer
 * carries none), a bank account's last four characters and no more. Another checkout's token learns nothing of it.
 * Over HTTP against the real sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_NOTE_FIELD, attemptNoteOf, attemptNoteOfOrder, BANK_ACCOUNT_DETAILS, CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, PAYER_CREATE_RULES, validate } from '../../src/core/index.js';
import { createMerchantHandler, issueCheckoutToken, ServiceClient, type CheckoutOrder } from '../../src/server/index.js';
import { SandboxControl, startStack } from '../../src/sandbox/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
import { startKitProcess, type KitProcess } from '../support/kit-process.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';

type Stack = Awaited<ReturnType<typeof startStack>>;
let stack: Stack;
let control: SandboxControl;
let serial = 0;

beforeAll(async () => {
  stack = await startStack({ sandbox: { tickMs: 50 }, handler: { logger: { warn() {}, error() {} }, limits: { createsPerClient: { limit: 1_000, windowSeconds: 600 } } } });
  control = new SandboxControl(stack.sandbox.url);
});
afterAll(() => stack.close());

function cart(): CheckoutOrder {
  serial += 1;
  return { reference: `note-${Date.now().toString(36)}-${serial}`, amount: { total: 12_500, currency: 'EGP' }, country: 'EG', product: { name: 'Espresso beans', description: '1 kg bag' } };
}

async function post(path: string, order: CheckoutOrder, body: Record<string, unknown>, url = stack.url) {
  const token = await issueCheckoutToken(stack.merchant, order);
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token }, body: JSON.stringify(body) });
  const text = await response.text();
  return { text, body: JSON.parse(text) as { code: string; data: any } };
}

const create = (order: CheckoutOrder, body: Record<string, unknown>) => post(MERCHANT_PATHS.create, order, body);
const status = (order: CheckoutOrder, reference = order.reference) => post(MERCHANT_PATHS.status, order, { country: 'EG', reference });

const POS = (sn: string) => ({ payMethod: 'Pos', sn });
const CODE = { payMethod: 'ReferenceCode', notify: { notifyUserName: 'Mona Hassan', notifyLanguage: 'English', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567', notifyMethod: 'BOTH' } };
const BANK = { payMethod: 'BankAccount', bankAccountNumber: '2215381176', bankCode: '033', dobDay: '05', dobMonth: '01', dobYear: '1990' };

describe("another page of the checkout is told which payment is in progress", () => {
  it("a terminal's serial number, with ORDER_EXISTS and with the status", async () => {
    const order = cart();
    const sn = `N7810181${String(7000 + serial)}`;
    expect((await create(order, POS(sn))).body.code).toBe('00000');
    const second = await create(order, POS('N78101819999'));
    expect(second.body).toMatchObject({ code: 'ORDER_EXISTS', data: { reference: order.reference, status: 'PENDING', [ATTEMPT_NOTE_FIELD]: { payMethod: 'Pos', sn } } });
    expect((await status(order)).body.data[ATTEMPT_NOTE_FIELD]).toEqual({ payMethod: 'Pos', sn });
  });

  it('the reference code the service answered the create with, which its own status answer does not carry', async () => {
    const order = cart();
    const made = await create(order, CODE);
    const referenceCode = made.body.data.referenceCode as string;
    expect(referenceCode).toMatch(/^\d{9}$/);
    // The service's own status answer: no code in it.
    const service = new ServiceClient({ ...stack.merchant, environment: { baseUrl: stack.sandbox.url } });
    const told = await service.send('status', { country: 'EG', reference: order.reference });
    expect(told.code).toBe('00000');
    expect(JSON.stringify(told)).not.toContain(referenceCode);
    const asked = await status(order);
    expect(asked.body.data[ATTEMPT_NOTE_FIELD]).toEqual({ payMethod: 'ReferenceCode', referenceCode });
    const again = await create(order, CODE);
    expect(again.body).toMatchObject({ code: 'ORDER_EXISTS', data: { [ATTEMPT_NOTE_FIELD]: { payMethod: 'ReferenceCode', referenceCode } } });
  });

  it("a bank account's last four characters, and never the rest of its number", async () => {
    const order = { ...cart(), returnUrl: 'https://shop.example/checkout/return' };
    const made = await create(order, BANK);
    expect(made.body.data?.status, made.text).toBe('PENDING');
    const asked = await status(order);
    expect(asked.body.data[ATTEMPT_NOTE_FIELD]).toEqual({ payMethod: 'BankAccount', accountEnding: '1176' });
    expect(asked.text).not.toContain('221538');
    const again = await create(order, BANK);
    expect(again.body.data[ATTEMPT_NOTE_FIELD]).toEqual({ payMethod: 'BankAccount', accountEnding: '1176' });
    expect(again.text).not.toContain('221538');
  });

  it("another checkout's token learns nothing of it: its reference refused, its own status and create without the note", async () => {
    const mine = cart();
    const made = await create(mine, CODE);
    const referenceCode = made.body.data.referenceCode as string;
    const other = cart();
    const peek = await status(other, mine.reference);
    expect(peek.body.code).not.toBe('00000');
    expect(peek.text).not.toContain(referenceCode);
    expect(peek.text).not.toContain(mine.reference.slice(5));
    // The other cart's own checkout: no order, no note; its create makes its own order, not an ORDER_EXISTS of mine.
    expect((await status(other)).text).not.toContain(referenceCode);
    const own = await create(other, CODE);
    expect(own.body.code).toBe('00000');
    expect(own.body.data.referenceCode).not.toBe(referenceCode);
    expect(own.text).not.toContain(ATTEMPT_NOTE_FIELD);
  });

  it('says nothing once the attempt is paid: the receipt is the answer', async () => {
    const order = cart();
    const sn = `N7810181${String(7000 + serial)}`;
    await create(order, POS(sn));
    await control.request('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome: 'success' });
    let paid = await status(order);
    for (let tries = 0; tries < 100 && paid.body.data?.status !== 'SUCCESS'; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      paid = await status(order);
    }
    expect(paid.body.data.status).toBe('SUCCESS');
    expect(paid.text).not.toContain(ATTEMPT_NOTE_FIELD);
    expect((await create(order, POS(sn))).text).not.toContain(ATTEMPT_NOTE_FIELD);
  });
});

describe('two kit processes sharing Redis', () => {
  let redis: TestRedis;
  let kits: KitProcess[];
  beforeAll(async () => {
    await assertDistFresh();
    redis = await startRedis();
    kits = await Promise.all(['a', 'b'].map((name) => startKitProcess(name, { SANDBOX_URL: stack.sandbox.url, REDIS_URL: redis.url })));
  });
  afterAll(async () => {
    await Promise.all((kits ?? []).map((kit) => kit.stop()));
    await redis?.close();
  });

  it('the code one process made is told by the other, which never saw its create', async () => {
    const order = cart();
    const made = await post(MERCHANT_PATHS.create, order, CODE, kits[0]!.url);
    const referenceCode = made.body.data.referenceCode as string;
    expect(referenceCode).toMatch(/^\d{9}$/);
    const asked = await post(MERCHANT_PATHS.status, order, { country: 'EG', reference: order.reference }, kits[1]!.url);
    expect(asked.body.data[ATTEMPT_NOTE_FIELD]).toEqual({ payMethod: 'ReferenceCode', referenceCode });
    const again = await post(MERCHANT_PATHS.create, order, CODE, kits[1]!.url);
    expect(again.body).toMatchObject({ code: 'ORDER_EXISTS', data: { [ATTEMPT_NOTE_FIELD]: { payMethod: 'ReferenceCode', referenceCode } } });
  });
});

describe('a checkout store of the shop’s own', () => {
  it('is refused without noted, naming it, rather than losing every note later', () => {
    const store = { read: () => undefined, seen() {}, forwarding() {} };
    expect(() => createMerchantHandler({ ...stack.merchant, environment: { baseUrl: stack.sandbox.url }, checkoutStore: store as never })).toThrow(/checkoutStore\.noted/);
  });
});

describe('a note as it is kept and read', () => {
  it('keeps a terminal, a code, and four characters of an account of eight or more; nothing else', () => {
    expect(attemptNoteOfOrder({ payMethod: 'Pos', sn: 'N78101818410' })).toEqual({ payMethod: 'Pos', sn: 'N78101818410' });
    expect(attemptNoteOfOrder({ payMethod: 'ReferenceCode' }, '123456789')).toEqual({ payMethod: 'ReferenceCode', referenceCode: '123456789' });
    expect(attemptNoteOfOrder({ payMethod: 'ReferenceCode' })).toBeUndefined();
    expect(attemptNoteOfOrder({ payMethod: 'BankAccount', bankAccountNumber: 'GB33 BUKB 2020 1555 5555 55' })).toEqual({ payMethod: 'BankAccount', accountEnding: '5555' });
    expect(attemptNoteOfOrder({ payMethod: 'BankAccount', bankAccountNumber: '1234567' })).toBeUndefined();
    expect(attemptNoteOf({ payMethod: 'Pos', sn: '<img src=x>' })).toBeUndefined();
    expect(attemptNoteOf({ payMethod: 'BankAccount', accountEnding: '2215381176' })).toBeUndefined();
    expect(attemptNoteOf({ payMethod: 'Card', sn: 'N1' })).toBeUndefined();
    expect(attemptNoteOf('{"payMethod":"Pos"}')).toBeUndefined();
  });

  it("reads a terminal and an account number by the create's own rules (src/core/rules.ts)", () => {
    for (const sn of ['N78101818410', ' N78101818410 ', 'A-1', 'x'.repeat(32), 'x'.repeat(33), 'N7 81', 'N78\u202e1', '']) {
      const created = validate(PAYER_CREATE_RULES.Pos, { sn });
      expect(attemptNoteOfOrder({ payMethod: 'Pos', sn }), JSON.stringify(sn)).toEqual(created.ok ? { payMethod: 'Pos', ...created.value } : undefined);
    }
    // Its spaces go as the create's rule strips them; a number that rule refuses has no note.
    expect(attemptNoteOfOrder({ payMethod: 'BankAccount', bankAccountNumber: ' 2215 3811 76 ' })).toEqual({ payMethod: 'BankAccount', accountEnding: '1176' });
    for (const refused of ['2215\t381176', '1'.repeat(35)]) {
      expect(validate(BANK_ACCOUNT_DETAILS, { bankAccountNumber: refused }).violations.map((violation) => violation.field)).toContain('bankAccountNumber');
      expect(attemptNoteOfOrder({ payMethod: 'BankAccount', bankAccountNumber: refused }), refused).toBeUndefined();
    }
  });
});
