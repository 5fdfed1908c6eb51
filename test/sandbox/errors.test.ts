// Every error code of the specification, produced by the sandbox through real HTTP.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, codesOf, SERVICE_PATHS } from '../../src/core/index.js';
import { ServiceClient } from '../../src/server/index.js';
import { createSandbox, DEFAULT_MERCHANT, type Sandbox } from '../../src/sandbox/index.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../core/fixtures.js';

let sandbox: Sandbox;
let client: ServiceClient;
let counter = 0;
const unique = () => `err-${++counter}`;

const posOnly = { merchantId: '256600000000002', privateKey: 'pos-only-key', methods: ['Pos' as const] };
const closed = { merchantId: '256600000000003', privateKey: 'closed-key', available: false };

beforeAll(async () => {
  sandbox = await createSandbox({ merchants: [DEFAULT_MERCHANT, posOnly, closed] });
  client = new ServiceClient({ merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey, environment: { baseUrl: sandbox.url } });
});
afterAll(() => sandbox.close());

async function raw(path: string, body: string | Uint8Array, headers: Record<string, string>) {
  const response = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers, body: body as BodyInit });
  return { status: response.status, json: await response.json() };
}

async function signed(body: unknown, merchant: { merchantId: string; privateKey: string } = DEFAULT_MERCHANT, path: string = SERVICE_PATHS.create) {
  const text = typeof body === 'string' || body instanceof Uint8Array ? body : canonicalJson(body);
  const signature = createHmac('sha512', merchant.privateKey).update(text).digest('hex');
  return raw(path, text, { 'Content-Type': 'application/json', Authorization: `Bearer ${signature}`, MerchantId: merchant.merchantId });
}

describe('02000 authentication failed.', () => {
  it('answers a missing or unknown MerchantId, a missing or wrong signature, with HTTP 200', async () => {
    const body = canonicalJson(posRequest({ reference: unique() }));
    const signature = createHmac('sha512', DEFAULT_MERCHANT.privateKey).update(body).digest('hex');
    const cases: Record<string, string>[] = [
      { Authorization: `Bearer ${signature}` },
      { Authorization: `Bearer ${signature}`, MerchantId: '999999' },
      { MerchantId: DEFAULT_MERCHANT.merchantId },
      { Authorization: signature, MerchantId: DEFAULT_MERCHANT.merchantId },
      { Authorization: `Bearer ${(parseInt(signature[0]!, 16) ^ 1).toString(16)}${signature.slice(1)}`, MerchantId: DEFAULT_MERCHANT.merchantId },
      { Authorization: `Bearer ${createHmac('sha512', 'wrong').update(body).digest('hex')}`, MerchantId: DEFAULT_MERCHANT.merchantId },
    ];
    for (const headers of cases) {
      const answer = await raw(SERVICE_PATHS.create, body, { 'Content-Type': 'application/json', ...headers });
      expect(answer).toEqual({ status: 200, json: { code: '02000', message: 'authentication failed.', data: null } });
    }
  });

  it('checks the signature over the raw bytes received, so a re-serialised body fails', async () => {
    const body = canonicalJson(posRequest({ reference: unique() }));
    const spaced = JSON.stringify(JSON.parse(body), null, 2);
    const signature = createHmac('sha512', DEFAULT_MERCHANT.privateKey).update(body).digest('hex');
    const answer = await raw(SERVICE_PATHS.create, spaced, {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${signature}`,
      MerchantId: DEFAULT_MERCHANT.merchantId,
    });
    expect(answer.json.code).toBe('02000');
    expect((await signed(spaced)).json.code).toBe('00000');
  });

  it('accepts the public key in place of a signature on status queries only', async () => {
    const reference = unique();
    await client.createPayment(posRequest({ reference }) as never);
    const headers = {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${DEFAULT_MERCHANT.publicKey}`,
      MerchantId: DEFAULT_MERCHANT.merchantId,
    };
    const status = await raw(SERVICE_PATHS.status, JSON.stringify({ country: 'EG', reference }), headers);
    expect(status.json.code).toBe('00000');
    const create = await raw(SERVICE_PATHS.create, JSON.stringify(posRequest({ reference: unique() })), headers);
    expect(create.json.code).toBe('02000');
  });
});

describe('02001 request params not valid.', () => {
  it('names every invalid field in data.errors', async () => {
    const answer = await signed(referenceCodeRequest({ reference: unique(), country: 'egypt' }, { notifyUserEmail: 'nope', notifyLanguage: 'French' }));
    expect(answer.status).toBe(200);
    expect(answer.json.code).toBe('02001');
    expect(answer.json.message).toBe('request params not valid.');
    expect(answer.json.data.errors.map((error: { field: string }) => error.field).sort()).toEqual([
      'country',
      'notify.notifyLanguage',
      'notify.notifyUserEmail',
    ]);
  });

  it('answers a body that is not JSON, not UTF-8, or not an object', async () => {
    for (const body of ['{"reference":', 'plain text', '[1,2]', '"text"', 'null', new Uint8Array([0x7b, 0xff, 0x7d])]) {
      const answer = await signed(body);
      expect(answer.status).toBe(200);
      expect(answer.json.code).toBe('02001');
      expect(answer.json.data.errors[0].field).toBe('body');
    }
  });

  it('answers a date of birth that is not the test account holder’s', async () => {
    const answer = await signed(bankAccountRequest({ reference: unique(), dobDay: '06' }));
    expect(answer.json.code).toBe('02001');
    expect(answer.json.data.errors).toEqual([
      { field: 'dobDay', rule: 'mismatch', message: 'dobDay, dobMonth and dobYear do not match the account holder' },
    ]);
  });
});

describe('the other codes', () => {
  it('02002 for a method the merchant is not configured for', async () => {
    expect((await signed(referenceCodeRequest({ reference: unique() }), posOnly)).json).toEqual({
      code: '02002',
      message: 'merchant not configured with this function.',
      data: null,
    });
    expect((await signed(posRequest({ reference: unique() }), posOnly)).json.code).toBe('00000');
  });

  it('02003 for a payMethod the service does not support', async () => {
    const answer = await signed(posRequest({ reference: unique(), payMethod: 'Card' }));
    expect(answer.json.code).toBe('02003');
    expect(answer.json.message).toBe('payMethod not support.');
  });

  it('02004 for a repeated Pos or BankAccount reference, 20000 for ReferenceCode', async () => {
    const reference = unique();
    expect((await client.createPayment(posRequest({ reference }) as never)).code).toBe('00000');
    expect(await client.createPayment(bankAccountRequest({ reference }) as never)).toEqual({
      code: '02004',
      message: 'the payment reference already exists.',
      data: null,
    });
    const codeReference = unique();
    expect((await client.createPayment(referenceCodeRequest({ reference: codeReference }) as never)).code).toBe('00000');
    expect(await client.createPayment(referenceCodeRequest({ reference: codeReference }) as never)).toEqual({
      code: '20000',
      message: 'Duplicate merchant order number.',
      data: null,
    });
  });

  it('02006 for an unknown refund, and for an unknown payment with the sample wording', async () => {
    expect(await client.queryRefund({ country: 'EG', reference: 'no-such-refund' })).toEqual({ code: '02006', message: 'not found.', data: null });
    expect(await client.queryStatus({ country: 'EG', reference: 'no-such-order' })).toEqual({
      code: '02006',
      message: 'payment not found.',
      data: null,
    });
  });

  it('02007 for a merchant that is not available', async () => {
    expect((await signed(posRequest({ reference: unique() }), closed)).json).toEqual({ code: '02007', message: 'merchant not available.', data: null });
  });

  it('answers each code of the payment family when amount.total equals its number', async () => {
    for (const code of codesOf('payment')) {
      const answer = await client.createPayment(posRequest({ reference: unique(), amount: { total: Number(code), currency: 'EGP' } }) as never);
      expect(answer.code).toBe(code);
    }
  });

  it('answers each code of the reference code family when amount.total equals its number', async () => {
    for (const code of codesOf('referenceCode')) {
      const answer = await client.createPayment(referenceCodeRequest({ reference: unique(), amount: { total: String(Number(code)), currency: 'EGP' } }) as never);
      expect(answer.code).toBe(code);
    }
  });

  it('answers the refund family by amount too', async () => {
    const answer = await client.createRefund({
      amount: { total: 50003, currency: 'EGP' },
      country: 'EG',
      originalReference: 'any',
      reference: unique(),
      refundWay: 'Original',
    });
    expect(answer.code).toBe('50003');
  });
});
