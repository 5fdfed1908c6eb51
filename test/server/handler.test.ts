import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER, SERVICE_PATHS } from '../../src/core/index.js';
import { createMerchantHandler, EXPIRES_IN_HEADER, MemoryCallbackStore, OrderRejection, signCallback, toNodeListener, type MerchantHandlerOptions } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { listen, startFakeService, type FakeService } from '../support/fake-service.js';
import { tokenHeader } from '../support/tokens.js';

const merchantId = '256612345678901';
const privateKey = 'merchant-private-key-for-tests';
const created = (data: Record<string, unknown> = {}) => ({
  body: {
    code: '00000',
    message: 'SUCCESSFUL',
    data: { reference: 'order-1001', orderNo: '2611220000001', status: 'PENDING', nextAction: { actionType: 'SWIPE_CARD' }, ...data },
  },
});

let service: FakeService;
let merchant: { url: string; close(): Promise<void> };
let callbacks: CallbackEvent[];
const logs: string[] = [];
const logger = { warn: (line: string) => logs.push(line), error: (line: string) => logs.push(line) };

async function startMerchant(options: Partial<MerchantHandlerOptions> = {}) {
  await merchant?.close();
  const handler = createMerchantHandler({
    merchantId,
    privateKey,
    environment: { baseUrl: service.url },
    basePath: '/checkout',
    retryDelayMs: 1,
    logger,
    onCallback: (event) => {
      callbacks.push(event);
    },
    ...options,
  });
  merchant = await listen(toNodeListener(handler));
}

beforeEach(async () => {
  callbacks = [];
  logs.length = 0;
  service = await startFakeService(() => created());
  await startMerchant();
});

afterEach(async () => {
  await merchant.close();
  await service.close();
});

/**
 * Posts to the kit as the element would. A create or a status query without a token of its own carries a
 * checkout token for the order its body names, as the shop's server would have rendered it.
 */
async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const needsToken = (path === MERCHANT_PATHS.create || path === MERCHANT_PATHS.status) && typeof body === 'object';
  const proof = needsToken && !headers[CHECKOUT_TOKEN_HEADER] && !headers[ORDER_TOKEN_HEADER] ? await tokenHeader({ merchantId, privateKey }, body) : {};
  const response = await fetch(`${merchant.url}/checkout${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...proof, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json };
}

const callbackBody = {
  notifyId: 'notify-1',
  reference: 'order-1001',
  amount: { total: '12500', currency: 'EGP' },
  orderNo: '2611220000001',
  country: 'EG',
  status: 'SUCCESS',
  timestamp: Date.now(),
  type: 'MACQUIRING_CALLBACK',
};

async function deliverCallback(payload = JSON.stringify(callbackBody), options: { key?: string; merchant?: string; timestamp?: number } = {}) {
  const timestamp = String(options.timestamp ?? Date.now());
  const signature = await signCallback(timestamp, payload, options.key ?? privateKey);
  return post(MERCHANT_PATHS.callbacks, payload, {
    Authorization: signature,
    MerchantId: options.merchant ?? merchantId,
    RequestTimestamp: timestamp,
  });
}

describe('element routes', () => {
  it('creates a payment: validates, signs, forwards, and returns the service envelope unchanged', async () => {
    const answer = await post(MERCHANT_PATHS.create, posRequest({ reference: 'order-1001' }));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(created().body);
    const forwarded = service.requests[0]!;
    expect(forwarded.path).toBe(SERVICE_PATHS.create);
    expect(forwarded.headers['authorization']).toBe(`Bearer ${createHmac('sha512', privateKey).update(forwarded.raw).digest('hex')}`);
    expect(forwarded.json).toMatchObject({ reference: 'order-1001', payMethod: 'Pos', sn: 'N78101818218', expireAt: 30 });
    expect(answer.headers.get(EXPIRES_IN_HEADER)).toBe('1800');
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('answers invalid input with 02001 naming every field, and calls nobody', async () => {
    const answer = await post(MERCHANT_PATHS.create, bankAccountRequest({ dobDay: '31', dobMonth: '02', returnUrl: 'ftp://x' }));
    expect(answer.status).toBe(200);
    expect(answer.json.code).toBe('02001');
    expect(answer.json.data.errors.map((error: { field: string }) => error.field).sort()).toEqual(['dobDay', 'returnUrl']);
    expect(service.requests).toHaveLength(0);
  });

  it('answers an unknown payMethod with 02003', async () => {
    const answer = await post(MERCHANT_PATHS.create, posRequest({ payMethod: 'Cash' }));
    expect(answer.json.code).toBe('02003');
    expect(answer.json.message).toBe('payMethod not support.');
  });

  it('lets authorize set the amount and reference before anything is signed', async () => {
    await startMerchant({
      authorize: (order) => ({ ...order, amount: { total: 99_900, currency: 'EGP' }, reference: 'server-ref-1' }),
    });
    await post(MERCHANT_PATHS.create, posRequest({ amount: { total: 1, currency: 'EGP' } }));
    expect(service.requests[0]!.json).toMatchObject({ amount: { total: 99_900, currency: 'EGP' }, reference: 'server-ref-1' });
  });

  it('turns an OrderRejection into a clear envelope at the field it names', async () => {
    await startMerchant({
      authorize: () => {
        throw new OrderRejection('This cart has changed; reload the page.', { field: 'amount.total' });
      },
    });
    const answer = await post(MERCHANT_PATHS.create, posRequest());
    expect(answer.json).toEqual({
      code: '02001',
      message: 'request params not valid.',
      data: { errors: [{ field: 'amount.total', rule: 'merchant', message: 'This cart has changed; reload the page.' }] },
    });
    expect(service.requests).toHaveLength(0);
  });

  it('checks what authorize returns with the same rules', async () => {
    await startMerchant({ authorize: (order) => ({ ...order, amount: { total: -5, currency: 'EGP' } }) });
    const answer = await post(MERCHANT_PATHS.create, posRequest());
    expect(answer.json.code).toBe('02001');
    expect(answer.json.data.errors[0].field).toBe('amount.total');
    expect(service.requests).toHaveLength(0);
  });

  it('answers 500 without details when authorize fails unexpectedly, and keeps serving', async () => {
    await startMerchant({
      authorize: () => {
        throw new Error(`database down; key ${privateKey}`);
      },
    });
    const answer = await post(MERCHANT_PATHS.create, posRequest());
    expect(answer.status).toBe(500);
    expect(JSON.stringify(answer.json)).not.toContain('database');
    expect(logs.join('\n')).toContain('database down');
    expect(logs.join('\n')).not.toContain(privateKey);
    expect((await post(MERCHANT_PATHS.status, { country: 'EG', reference: 'order-1' })).status).toBe(200);
  });

  it('uses the configured callbackUrl over whatever the browser sent', async () => {
    await startMerchant({ callbackUrl: 'https://shop.example/checkout/callbacks' });
    await post(MERCHANT_PATHS.create, posRequest({ callbackUrl: 'https://attacker.example/' }));
    expect((service.requests[0]!.json as { callbackUrl: string }).callbackUrl).toMatch(
      /^https:\/\/shop\.example\/checkout\/callbacks\?checkout=order-1001&attempt=1&amount=\d+&currency=EGP&tag=[\w-]{22}$/,
    );
  });

  async function createdToken(): Promise<string> {
    const answer = await post(MERCHANT_PATHS.create, posRequest());
    const token = answer.headers.get(ORDER_TOKEN_HEADER);
    expect(token).toMatch(/^ot1\.[\w-]+\.[\w-]{43}$/);
    service.requests.length = 0;
    return token!;
  }

  it('forwards OTP, PIN, resend and status bodies to their service paths, with the order token', async () => {
    const token = { [ORDER_TOKEN_HEADER]: await createdToken() };
    await post(MERCHANT_PATHS.otp, { country: 'EG', orderNo: '2611220000001', otp: '11315632' }, token);
    await post(MERCHANT_PATHS.pin, { country: 'EG', orderNo: '2611220000001', pin: '1234' }, token);
    await post(MERCHANT_PATHS.resendOtp, { country: 'EG', orderNo: '2611220000001' }, token);
    await post(MERCHANT_PATHS.status, { country: 'EG', reference: 'order-1001' });
    expect(service.requests.map((request) => [request.path, request.json])).toEqual([
      [SERVICE_PATHS.inputOtp, { country: 'EG', orderNo: '2611220000001', otp: '11315632' }],
      [SERVICE_PATHS.inputPin, { country: 'EG', orderNo: '2611220000001', pin: '1234' }],
      [SERVICE_PATHS.resendOtp, { country: 'EG', orderNo: '2611220000001' }],
      [SERVICE_PATHS.status, { country: 'EG', reference: 'order-1001' }],
    ]);
  });

  it("says how long a pending order has left by the service's clock, as the Date of the service's answers tells it", async () => {
    const dated = (offsetSeconds: number | string) => ({
      ...created(),
      headers: { Date: typeof offsetSeconds === 'string' ? offsetSeconds : new Date(Date.now() + offsetSeconds * 1000).toUTCString() },
    });
    service.respond = () => dated(0);
    // Each query 2 s on the kit's clock after the one before, or it would share the answer of a second ago (a jump
    // of the kit's own clock changes nothing of the time left: tested below as well).
    let later = 0;
    await startMerchant({ now: () => Date.now() + later });
    const token = { [ORDER_TOKEN_HEADER]: await createdToken() };
    const left = async (answer: ReturnType<typeof dated>) => {
      service.respond = () => answer;
      later += 2_000;
      return Number((await post(MERCHANT_PATHS.status, {}, token)).headers.get(EXPIRES_IN_HEADER));
    };
    // Whole seconds on both sides: within two of the truth.
    expect(Math.abs((await left(dated(0))) - 1800)).toBeLessThanOrEqual(2);
    // The service's clock 10 minutes on (a moved sandbox clock): the order has 10 minutes less.
    expect(Math.abs((await left(dated(600))) - 1200)).toBeLessThanOrEqual(2);
    // An answer without a readable Date changes nothing of what the kit knows.
    expect(Math.abs((await left(dated('not a date'))) - 1200)).toBeLessThanOrEqual(2);
    // Past the service's expiry: nothing left, never less than nothing.
    expect(await left(dated(3_600))).toBe(0);
  });

  it("refuses an order's OTP, PIN or resend without that order's token, and calls nobody", async () => {
    const token = await createdToken();
    // The tag's first character: its last carries two spare bits, and A and B there decode to the same tag.
    const at = token.lastIndexOf('.') + 1;
    const forged = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    for (const [headers, reason] of [
      [{}, 'order-token'],
      [{ [ORDER_TOKEN_HEADER]: forged }, 'forged'],
      [{ [ORDER_TOKEN_HEADER]: 'f'.repeat(128) }, 'malformed'],
    ] as const) {
      for (const [path, extra] of [
        [MERCHANT_PATHS.otp, { otp: '11315632' }],
        [MERCHANT_PATHS.pin, { pin: '1234' }],
        [MERCHANT_PATHS.resendOtp, {}],
      ] as const) {
        const answer = await post(path, { country: 'EG', orderNo: '2611220000001', ...extra }, headers);
        expect(answer.json).toMatchObject({ code: '02000', data: { reason } });
      }
    }
    expect(service.requests).toHaveLength(0);
  });

  it("takes an order's number and country from its token, never from the body", async () => {
    const token = { [ORDER_TOKEN_HEADER]: await createdToken() };
    await post(MERCHANT_PATHS.otp, { country: 'SA', orderNo: '2611220000002', reference: 'someone-else', otp: '11315632' }, token);
    expect(service.requests.map((request) => request.json)).toEqual([{ country: 'EG', orderNo: '2611220000001', otp: '11315632' }]);
  });

  it('counts against wrongCodesPerOrder only the codes the service did not take: one taken, or never judged, is given back', async () => {
    await startMerchant({ limits: { wrongCodesPerOrder: { limit: 1, windowSeconds: 3_600 } } });
    const token = { [ORDER_TOKEN_HEADER]: await createdToken() };
    const otp = () => post(MERCHANT_PATHS.otp, { otp: '11315632' }, token);
    // Taken by the service (a step of the order done), three times over: none of them was wrong.
    for (let index = 0; index < 3; index++) expect((await otp()).json.code).toBe('00000');
    // No answer: the service judged nothing.
    service.respond = () => ({ drop: true });
    expect((await otp()).json.code).toBe('50003');
    // Refused by the service: one wrong code, all the limit allows; the next is refused at the kit.
    service.respond = () => ({ body: { code: '02001', message: 'request params not valid.', data: null } });
    expect((await otp()).json.code).toBe('02001');
    const sent = service.requests.length;
    const refused = await otp();
    expect(refused.json).toMatchObject({ code: 'TOO_MANY_REQUESTS', data: { limit: 'wrongCodesPerOrder' } });
    expect(service.requests).toHaveLength(sent);
    expect(logs.some((line) => line.includes('refused by the wrongCodesPerOrder limit'))).toBe(true);
  });

  it('lets authorizeAction refuse an action or a status query', async () => {
    await startMerchant({
      authorizeAction: (operation) => {
        if (operation === 'status') throw new OrderRejection('Sign in to see this order.', { field: 'reference' });
      },
    });
    const answer = await post(MERCHANT_PATHS.status, { country: 'EG', reference: 'order-1001' });
    expect(answer.json.data.errors).toEqual([{ field: 'reference', rule: 'merchant', message: 'Sign in to see this order.' }]);
    expect(service.requests).toHaveLength(0);
  });

  it('validates action bodies with the same rules', async () => {
    const token = { [ORDER_TOKEN_HEADER]: await createdToken() };
    const answer = await post(MERCHANT_PATHS.otp, { country: 'EG', orderNo: '2611220000001', otp: '12' }, token);
    expect(answer.json.code).toBe('02001');
    expect(answer.json.data.errors).toEqual([{ field: 'otp', rule: 'minLength', message: 'otp must be at least 4 characters' }]);
    expect(service.requests).toHaveLength(0);
  });

  it('turns an unreachable or slow service into envelope 50003, without leaking the key', async () => {
    service.respond = () => ({ delayMs: 2_000, body: {} });
    await startMerchant({ timeoutMs: 100 });
    const slow = await post(MERCHANT_PATHS.create, posRequest());
    expect(slow.json).toEqual({ code: '50003', message: 'service not available, please try again.', data: null });
    service.respond = () => ({ drop: true });
    const dropped = await post(MERCHANT_PATHS.status, { country: 'EG', reference: 'order-1' });
    expect(dropped.json.code).toBe('50003');
    expect(logs.join('\n')).not.toContain(privateKey);
  });

  it('tries a status query once, so that the element hears within its own timeout', async () => {
    service.respond = () => ({ delayMs: 2_000, body: {} });
    await startMerchant({ timeoutMs: 200, retries: 2 });
    const answer = await post(MERCHANT_PATHS.status, { country: 'EG', reference: 'order-1' });
    expect(answer.json.code).toBe('50003');
    expect(service.requests).toHaveLength(1);
  });

  it('sends no Svc-Expires-In when the create did not leave a pending order', async () => {
    service.respond = () => ({ body: { code: '02004', message: 'the payment reference already exists.', data: null } });
    const answer = await post(MERCHANT_PATHS.create, referenceCodeRequest({ expireAt: '45' }));
    expect(answer.json.code).toBe('02004');
    expect(answer.headers.get(EXPIRES_IN_HEADER)).toBeNull();
  });
});

describe('transport rules', () => {
  it('answers 404 outside its paths and 405 for other methods', async () => {
    expect((await post('/nope', {})).status).toBe(404);
    const outside = await fetch(`${merchant.url}/payments`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
    expect(outside.status).toBe(404);
    const get = await fetch(`${merchant.url}/checkout${MERCHANT_PATHS.status}`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('answers 413 for a body over the limit, by header or by stream, and keeps serving', async () => {
    const big = JSON.stringify(posRequest({ customerName: 'x'.repeat(20_000) }));
    expect((await post(MERCHANT_PATHS.create, big)).status).toBe(413);
    const streamed = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${merchant.url}/checkout${MERCHANT_PATHS.create}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      });
      request.on('response', (response) => resolve(response.statusCode ?? 0));
      request.on('error', reject);
      for (let chunk = 0; chunk < 40; chunk++) request.write('x'.repeat(1024));
      request.end();
    });
    expect(streamed).toBe(413);
    expect(service.requests).toHaveLength(0);
    expect((await post(MERCHANT_PATHS.create, posRequest())).status).toBe(200);
  });

  it('answers 415 for a body that is not JSON or not declared as JSON', async () => {
    expect((await post(MERCHANT_PATHS.create, '{"reference":')).status).toBe(415);
    expect((await post(MERCHANT_PATHS.create, JSON.stringify(posRequest()), { 'Content-Type': 'text/plain' })).status).toBe(415);
    const invalidUtf8 = await fetch(`${merchant.url}/checkout${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(invalidUtf8.status).toBe(415);
  });

  it('lets no __proto__ or constructor key pollute anything or reach the service', async () => {
    const hostile =
      '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},' +
      JSON.stringify(posRequest()).slice(1, -1) +
      ',"amount":{"total":100,"currency":"EGP","__proto__":{"polluted":"yes"}}}';
    const answer = await post(MERCHANT_PATHS.create, hostile, await tokenHeader({ merchantId, privateKey }, posRequest()));
    expect(answer.status).toBe(200);
    expect(answer.json.code).toBe('00000');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    const sent = service.requests[0]!.raw.toString('utf8');
    expect(sent).not.toContain('__proto__');
    expect(sent).not.toContain('constructor');
  });
});

describe('callbacks', () => {
  const body = JSON.stringify(callbackBody);
  const deliver = deliverCallback;

  it('verifies a callback and hands it to onCallback with a numeric amount', async () => {
    const answer = await deliver();
    expect(answer.status).toBe(200);
    expect(answer.json.code).toBe('00000');
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]!.body).toMatchObject({ notifyId: 'notify-1', status: 'SUCCESS', amount: { total: 12_500 } });
    expect(callbacks[0]!.raw).toBe(body);
  });

  it('hands a replayed notifyId to onCallback once, and still acknowledges it', async () => {
    expect((await deliver()).status).toBe(200);
    const replay = await deliver();
    expect(replay.status).toBe(200);
    expect(replay.json.data).toEqual({ duplicate: true });
    expect(callbacks).toHaveLength(1);
  });

  it('rejects a tampered body, a wrong key, a wrong merchant and a stale timestamp with 401', async () => {
    const tampered = await post(MERCHANT_PATHS.callbacks, body.replace('SUCCESS', 'FAIL'), {
      Authorization: await signCallback(String(Date.now()), body, privateKey),
      MerchantId: merchantId,
      RequestTimestamp: String(Date.now()),
    });
    expect(tampered.status).toBe(401);
    expect((await deliver(body, { key: 'not-the-key' })).json.reason).toBe('bad-signature');
    expect((await deliver(body, { merchant: '999' })).json.reason).toBe('merchant-mismatch');
    expect((await deliver(body, { timestamp: Date.now() - 10 * 60_000 })).json.reason).toBe('stale-timestamp');
    expect(callbacks).toHaveLength(0);
  });

  it('answers 400 to a signed body that breaks the callback table, and logs which fields', async () => {
    const answer = await deliver(JSON.stringify({ notifyId: 'n-2', status: 'DONE' }));
    expect(answer.status).toBe(400);
    expect(answer.json.errors.map((error: { field: string }) => error.field)).toContain('status');
    expect(callbacks).toHaveLength(0);
    expect(logs.join('\n')).toMatch(/refused: .*status \(enum\)/);
  });

  it('takes a signed callback whose values go beyond the limits we chose for requests', async () => {
    const loose = JSON.stringify({
      ...JSON.parse(body),
      notifyId: 'notify-loose',
      reference: `a reference with spaces and ${'x'.repeat(100)}`,
      timestamp: String(Date.now()),
      amount: { total: 0, currency: 'egp' },
    });
    expect((await deliver(loose)).status).toBe(200);
    expect(callbacks[0]!.body.amount.total).toBe(0);
  });

  it('answers 500 when onCallback fails, and handles the retry', async () => {
    let failures = 1;
    await startMerchant({
      onCallback: (event) => {
        if (failures-- > 0) throw new Error('disk full');
        callbacks.push(event);
      },
    });
    expect((await deliver()).status).toBe(500);
    expect((await deliver()).status).toBe(200);
    expect(callbacks).toHaveLength(1);
  });
});

describe('callbacks delivered twice at once', () => {
  it('does not acknowledge a delivery while the first is being handled, so a failed first one is not lost', async () => {
    let finish!: (outcome: 'ok' | 'fail') => void;
    const handled: string[] = [];
    let calls = 0;
    await startMerchant({
      onCallback: async (event) => {
        calls++;
        if (calls === 1) {
          const outcome = await new Promise<'ok' | 'fail'>((resolve) => (finish = resolve));
          if (outcome === 'fail') throw new Error('database unavailable');
        }
        handled.push(event.notifyId);
      },
    });
    const payload = JSON.stringify({ ...callbackBody, notifyId: 'notify-twice' });
    const first = deliverCallback(payload);
    await vi.waitFor(() => expect(calls).toBe(1));
    const meanwhile = await deliverCallback(payload);
    expect(meanwhile.status).toBe(503);
    expect(meanwhile.headers.get('retry-after')).toBe('10');
    finish('fail');
    expect((await first).status).toBe(500);
    const retry = await deliverCallback(payload);
    expect(retry.status).toBe(200);
    expect(retry.json.data).toEqual({ duplicate: false });
    expect((await deliverCallback(payload)).json.data).toEqual({ duplicate: true });
    expect(handled).toEqual(['notify-twice']);
  });

  it('hands a notifyId over again once the lease of a handling that never ended runs out', () => {
    let now = 1_000;
    const store = new MemoryCallbackStore({ leaseMs: 60_000, now: () => now });
    expect(store.claim('n')).toBe('new');
    expect(store.claim('n')).toBe('busy');
    now += 60_001;
    expect(store.claim('n')).toBe('new');
    store.complete('n');
    now += 72 * 3_600_000;
    expect(store.claim('n')).toBe('done');
    store.release('other');
    expect(store.size).toBe(1);
  });
});

describe('configuration', () => {
  it('refuses numeric options that are not numbers, naming them', () => {
    const make = (extra: Partial<MerchantHandlerOptions>) => () =>
      createMerchantHandler({ merchantId, privateKey, environment: { baseUrl: 'http://127.0.0.1:9' }, ...extra });
    expect(make({ callbackToleranceSeconds: Number.NaN })).toThrow(/callbackToleranceSeconds/);
    expect(make({ retries: Number.NaN })).toThrow(/retries/);
    expect(make({ timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(make({ maxBodyBytes: Number.POSITIVE_INFINITY })).toThrow(/maxBodyBytes/);
    expect(make({ callbackUrl: 'not a url' })).toThrow(/callbackUrl/);
    // A store written for a claim that answered true or false, without complete().
    expect(make({ callbackStore: { claim: () => true, release: () => undefined } as never })).toThrow(/callbackStore\.complete/);
  });
});

describe('Express', () => {
  it('serves under a mount path and passes other paths to the next middleware', async () => {
    const handler = createMerchantHandler({ merchantId, privateKey, environment: { baseUrl: service.url }, logger });
    const app = express();
    app.use('/api/checkout', toNodeListener(handler));
    app.use((_request, response) => {
      response.status(404).json({ from: 'express' });
    });
    const server = await listen(app);
    try {
      const answer = await fetch(`${server.url}/api/checkout${MERCHANT_PATHS.create}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(await tokenHeader({ merchantId, privateKey }, posRequest())) },
        body: JSON.stringify(posRequest()),
      });
      expect(answer.status).toBe(200);
      expect((await answer.json()).code).toBe('00000');
      const other = await fetch(`${server.url}/api/checkout/unknown`, { method: 'POST' });
      expect(await other.json()).toEqual({ from: 'express' });
    } finally {
      await server.close();
    }
  });

  it('leaves the body of a request it does not serve to the next middleware', async () => {
    const handler = createMerchantHandler({ merchantId, privateKey, environment: { baseUrl: service.url }, basePath: '/checkout', logger });
    const app = express();
    app.use(toNodeListener(handler));
    app.use(express.json());
    app.post('/orders', (request, response) => {
      response.json({ received: request.body });
    });
    const server = await listen(app);
    try {
      const answer = await fetch(`${server.url}/orders`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ cart: [1, 2, 3] }),
        signal: AbortSignal.timeout(5_000),
      });
      expect(await answer.json()).toEqual({ received: { cart: [1, 2, 3] } });
      const pay = await fetch(`${server.url}/checkout${MERCHANT_PATHS.status}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ country: 'EG', reference: 'order-1' }),
      });
      expect(pay.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('reports clearly when a body parser consumed the body first', async () => {
    const handler = createMerchantHandler({ merchantId, privateKey, environment: { baseUrl: service.url }, logger });
    const errors: string[] = [];
    const app = express();
    app.use(express.json());
    app.use('/api/checkout', toNodeListener(handler, { onError: (error) => errors.push(String(error)) }));
    const server = await listen(app);
    try {
      const answer = await fetch(`${server.url}/api/checkout${MERCHANT_PATHS.create}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(posRequest()),
      });
      expect(answer.status).toBe(500);
      expect(errors.join()).toMatch(/before body parsers/);
    } finally {
      await server.close();
    }
  });
});

describe('the handler as a plain function', () => {
  it('serves a Web Request without any server', async () => {
    const handler = createMerchantHandler({ merchantId, privateKey, environment: { baseUrl: service.url }, logger });
    const response = await handler(
      new Request('https://shop.example/payments/status', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(await tokenHeader({ merchantId, privateKey }, { reference: 'order-1' })) },
        body: JSON.stringify({ country: 'EG', reference: 'order-1' }),
      }),
    );
    expect(response.status).toBe(200);
    expect(service.requests[0]!.path).toBe(SERVICE_PATHS.status);
  });
});
