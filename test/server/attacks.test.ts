/**
 * The attacks of the security review, sent as an attacker would send them: raw HTTP to the merchant kit, in
 * front of the real sandbox. Each test names the protection that stops it (README, "Threat model").
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER, SERVICE_PATHS } from '../../src/core/index.js';
import {
  createMerchantHandler,
  issueCheckoutToken,
  issueOrderToken,
  OrderRejection,
  STATUS_SHARED_MS,
  type CheckoutOrder,
  type MerchantHandlerOptions,
} from '../../src/server/index.js';
import { logValue } from '../../src/server/http/http.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { bankAccountRequest, posRequest, referenceCodeRequest } from '../core/fixtures.js';
import { eventually, wire, type Wired } from '../support/sandbox-fixture.js';
import { openStream, type OpenedStream } from '../support/sse.js';

const shop = { merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey };
/** The order the shop's server decided, as it renders it into its page. */
const decided: CheckoutOrder = {
  reference: 'order-7001',
  amount: { total: 12_500, currency: 'EGP' },
  country: 'EG',
  product: { name: 'Espresso beans', description: '1 kg bag' },
  merchantName: 'Cairo Coffee',
};

let stack: Wired;
const logs: string[] = [];
/** What the kit sent the service: each call's path and body, through the kit's own `fetch` (given in `start`). */
const sent: { path: string; body: any }[] = [];
const counting: typeof fetch = (input, init) => {
  sent.push({ path: new URL(String(input)).pathname, body: JSON.parse(String(init?.body ?? 'null')) });
  return fetch(input, init);
};
const sentTo = (path: string) => sent.filter((call) => call.path === path);
const streams: OpenedStream[] = [];

async function start(handler: Partial<MerchantHandlerOptions> = {}) {
  await stack?.close();
  stack = await wire({ handler: { logger: { warn: (line) => logs.push(line), error: (line) => logs.push(line) }, ...handler } });
}

beforeEach(async () => {
  logs.length = 0;
  sent.length = 0;
  await start();
});
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await stack.close();
});

/** A request as an attacker's script sends it: any body, any headers. */
async function send(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.merchantUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

/** The same, over node:http: headers fetch would not send as written (`Host`). */
function sendRaw(path: string, body: unknown, headers: Record<string, string>) {
  const url = new URL(`${stack.merchantUrl}${path}`);
  return new Promise<{ status: number; json: any }>((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

const tokenOf = (order: Partial<CheckoutOrder> = {}, credentials = shop) => issueCheckoutToken(credentials, { ...decided, ...order });
const withToken = async (order: Partial<CheckoutOrder> = {}) => ({ [CHECKOUT_TOKEN_HEADER]: await tokenOf(order) });

/** Changes one claim of a token and keeps its tag, as an attacker editing the page would. */
function alter(token: string, change: (claims: Record<string, any>) => void): string {
  const [kind, payload, tag] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
  change(claims);
  return [kind, Buffer.from(JSON.stringify(claims)).toString('base64url'), tag].join('.');
}

describe('the money and the reference come from the checkout token', () => {
  it('pays the decided amount whatever amount, currency, reference or country the body sends (the 1-piastre attack)', async () => {
    const answer = await send(
      MERCHANT_PATHS.create,
      posRequest({ reference: 'order-7001', amount: { total: 1, currency: 'USD' }, country: 'NG', product: { name: 'Free' } }),
      await withToken(),
    );
    expect(answer.json.code).toBe('00000');
    const [order] = await stack.sandboxControl.orders();
    expect(order).toMatchObject({ reference: 'order-7001', amount: { total: 12_500, currency: 'EGP' }, country: 'EG' });
  });

  it('refuses a token whose amount was edited, and nothing reaches the service', async () => {
    const token = alter(await tokenOf(), (claims) => {
      claims.a = 1;
    });
    const answer = await send(MERCHANT_PATHS.create, posRequest(), { [CHECKOUT_TOKEN_HEADER]: token });
    expect(answer.json).toMatchObject({ code: '02000', data: { reason: 'forged' } });
    expect(await stack.sandboxControl.orders()).toEqual([]);
  });

  it('refuses a token whose tag is respelled with the same bytes (spare bits of the last character)', async () => {
    const token = await tokenOf();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token.slice(-1));
    // A 32-byte tag ends in a character that carries 4 bits; its 2 spare bits take three other spellings.
    const respellings = [1, 2, 3].map((spare) => token.slice(0, -1) + alphabet[(last & ~3) | ((last + spare) & 3)]);
    for (const respelled of respellings) {
      const answer = await send(MERCHANT_PATHS.create, posRequest(), { [CHECKOUT_TOKEN_HEADER]: respelled });
      expect(answer.json).toMatchObject({ code: '02000', data: { reason: 'forged' } });
    }
    expect(await stack.sandboxControl.orders()).toEqual([]);
  });

  it("refuses tokens whose payload is respelled to the same claims: checkout and order tokens, the kit's own tag kept", async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    /**
     * Spellings of the same payload bytes a forgiving base64 reader takes: padding, a space, and other spare bits in
     * the last character when it has any (a payload whose length is a multiple of 4 has none).
     */
    const respellings = (token: string) => {
      const [kind, payload, tag] = token.split('.') as [string, string, string];
      const spare = [0, undefined, 15, 3][payload.length % 4];
      const last = alphabet.indexOf(payload.slice(-1));
      return [
        `${payload}${'='.repeat((4 - (payload.length % 4)) % 4 || 4)}`,
        `${payload.slice(0, 8)} ${payload.slice(8)}`,
        ...(spare ? [`${payload.slice(0, -1)}${alphabet[(last & ~spare) | ((last + 1) & spare)]}`] : []),
      ].map((respelled) => {
        // The respelled payload reads as the same claims; only its text differs.
        expect(Buffer.from(respelled.replace(/[ =]/g, ''), 'base64url').toString()).toBe(Buffer.from(payload, 'base64url').toString());
        return `${kind}.${respelled}.${tag}`;
      });
    };
    // A product name that leaves spare bits in the payload's last character.
    let checkoutToken = await tokenOf();
    for (let pad = 1; checkoutToken.split('.')[1]!.length % 4 === 0; pad++) checkoutToken = await tokenOf({ product: { name: `Espresso beans${'!'.repeat(pad)}`, description: '1 kg bag' } });
    expect(respellings(checkoutToken)).toHaveLength(3);
    for (const respelled of respellings(checkoutToken)) {
      const answer = await send(MERCHANT_PATHS.create, posRequest(), { [CHECKOUT_TOKEN_HEADER]: respelled });
      expect(answer.json.code, respelled).toBe('02000');
      expect(['malformed', 'forged'], respelled).toContain(answer.json.data.reason);
    }
    expect(await stack.sandboxControl.orders()).toEqual([]);

    const created = await send(MERCHANT_PATHS.create, posRequest({ reference: decided.reference }), { [CHECKOUT_TOKEN_HEADER]: checkoutToken });
    const orderToken = created.headers.get(ORDER_TOKEN_HEADER)!;
    expect((await send(MERCHANT_PATHS.status, {}, { [ORDER_TOKEN_HEADER]: orderToken })).json.code).toBe('00000');
    for (const respelled of respellings(orderToken)) {
      const answer = await send(MERCHANT_PATHS.status, {}, { [ORDER_TOKEN_HEADER]: respelled });
      expect(answer.json.code, respelled).toBe('02000');
    }
  });

  it('refuses a create with no token, a malformed one, an expired one and one of another merchant', async () => {
    const otherShop = { merchantId: '256600000000009', privateKey: 'another-shops-key' };
    const expired = await issueCheckoutToken(shop, decided, { now: Date.now() - 7_200_000, expiresInSeconds: 3_600 });
    const cases: [Record<string, string>, string][] = [
      [{}, 'missing'],
      [{ [CHECKOUT_TOKEN_HEADER]: 'ct1.not-a-token' }, 'malformed'],
      [{ [CHECKOUT_TOKEN_HEADER]: expired }, 'expired'],
      [{ [CHECKOUT_TOKEN_HEADER]: await tokenOf({}, otherShop) }, 'forged'],
      // Signed with this shop's key but naming another merchant (two merchant ids sharing a key).
      [{ [CHECKOUT_TOKEN_HEADER]: await issueCheckoutToken({ ...shop, merchantId: '256600000000009' }, decided) }, 'merchant'],
    ];
    for (const [headers, reason] of cases) {
      const answer = await send(MERCHANT_PATHS.create, posRequest(), headers);
      expect(answer.json, reason).toMatchObject({ code: '02000', data: { reason } });
    }
    expect(await stack.sandboxControl.orders()).toEqual([]);
  });

  it("cannot pre-create another payer's guessable reference to make their create meet 02004", async () => {
    // The attacker holds a real token for their own cart, and names the victim's next reference.
    for (const reference of ['order-7002', 'order-7001-x', 'order-7001-2', 'order-7001--100', 'order-7001--02', 'order-70012', 'order-7001--2x']) {
      const answer = await send(MERCHANT_PATHS.create, posRequest({ reference }), await withToken());
      expect(answer.json, reference).toMatchObject({ code: '02000', data: { reason: 'reference' } });
    }
    expect(await stack.sandboxControl.orders()).toEqual([]);
  });

  it('gives each retry a fresh reference derived from the token, within a bound', async () => {
    const headers = await withToken({ attempts: 2 });
    // Attempts follow one another, each after the one before ended unpaid (docs/one-payment.md).
    expect((await send(MERCHANT_PATHS.create, posRequest({ reference: 'order-7001', sn: 'N78101818219' }), headers)).json.code).toBe('00000');
    await stack.sandboxControl.swipe('N78101818219', 'fail');
    expect((await send(MERCHANT_PATHS.create, posRequest({ reference: 'order-7001--2', sn: 'N78101818218' }), headers)).json.code).toBe('00000');
    await stack.sandboxControl.swipe('N78101818218', 'fail');
    // The token allows two: a third is refused whatever attempt the request names, and said.
    for (const reference of ['order-7001--3', 'order-7001--2', 'order-7001']) {
      expect((await send(MERCHANT_PATHS.create, posRequest({ reference }), headers)).json, reference).toMatchObject({ code: 'ATTEMPTS_EXHAUSTED' });
    }
    expect((await stack.sandboxControl.orders()).map((order) => order.reference).sort()).toEqual(['order-7001', 'order-7001--2']);
  });

  it('offers only the methods the token names', async () => {
    const answer = await send(MERCHANT_PATHS.create, referenceCodeRequest({ reference: 'order-7001' }), await withToken({ methods: ['Pos'] }));
    expect(answer.json).toMatchObject({ code: '02001', data: { errors: [{ field: 'payMethod', rule: 'offered' }] } });
    expect(await stack.sandboxControl.orders()).toEqual([]);
  });
});

describe("the shop's name and callback address are never the browser's", () => {
  it("sends reference code messages in the shop's name, whatever merchantName the body carries", async () => {
    const bait = 'BANK ALERT: card locked, call 0100 000 0000';
    const answer = await send(MERCHANT_PATHS.create, referenceCodeRequest({ reference: 'order-7001', merchantName: bait }), await withToken());
    expect(answer.json.code).toBe('00000');
    const messages = await stack.sandboxControl.notifications();
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) {
      expect(message.text).toContain('Cairo Coffee');
      expect(message.text).not.toContain('BANK ALERT');
    }
  });

  it("posts callbacks to the kit's own address, never to the body's callbackUrl", async () => {
    await start({ authorize: undefined, callbackUrl: 'http://127.0.0.1:9/callbacks' });
    await send(MERCHANT_PATHS.create, posRequest({ reference: 'order-7001', callbackUrl: 'http://127.0.0.1:8/steal' }), await withToken());
    const [order] = await stack.sandboxControl.orders();
    expect(order!.callbackUrl).toMatch(/^http:\/\/127\.0\.0\.1:9\/callbacks\?checkout=order-7001&attempt=1&amount=12500&currency=EGP&tag=[\w-]{22}$/);
  });

  it('refuses to send messages to one phone or mailbox more than the hourly limit, with Retry-After', async () => {
    await start({ limits: { messagesPerPhone: { limit: 2, windowSeconds: 3_600 }, messagesPerEmail: false } });
    const sent = [];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      // A new order each time (the attacker's own carts), the same victim's phone.
      const reference = `spam-${attempt}`;
      const body = referenceCodeRequest({ reference }, { notifyMethod: 'SMS', notifyUserEmail: undefined });
      sent.push(await send(MERCHANT_PATHS.create, body, await withToken({ reference })));
    }
    expect(sent.map((answer) => answer.json.code)).toEqual(['00000', '00000', 'TOO_MANY_REQUESTS']);
    expect(sent[2]!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(sent[2]!.json.data).toMatchObject({ limit: 'messagesPerPhone' });
    expect(await stack.sandboxControl.orders()).toHaveLength(2);
  });
});

describe('each payer sees only their own order', () => {
  it("cannot read another order's amount and status by guessing its reference", async () => {
    const victim = await send(MERCHANT_PATHS.create, posRequest({ reference: 'order-7001' }), await withToken());
    expect(victim.json.code).toBe('00000');
    // Without proof, with the attacker's own checkout token, and with a made-up order token.
    const attacker = await withToken({ reference: 'order-7002' });
    for (const [headers, reason] of [
      [{}, 'missing'],
      [attacker, 'reference'],
      [{ [ORDER_TOKEN_HEADER]: await issueOrderToken('a-guessed-key', { merchantId: shop.merchantId, orderNo: victim.json.data.orderNo, reference: 'order-7001', country: 'EG', expiresAt: 2e9 }) }, 'forged'],
    ] as const) {
      const answer = await send(MERCHANT_PATHS.status, { country: 'EG', reference: 'order-7001' }, headers);
      expect(answer.json, reason).toMatchObject({ code: '02000', data: { reason } });
      expect(JSON.stringify(answer.json)).not.toContain('12500');
    }
    // An orderNo in the body is not looked at: the attacker's token only ever queries the attacker's reference.
    const byNumber = await send(MERCHANT_PATHS.status, { country: 'EG', orderNo: victim.json.data.orderNo }, attacker);
    expect(byNumber.json.code).toBe('02006');
    expect(JSON.stringify(byNumber.json)).not.toContain(victim.json.data.orderNo);
  });

  it("sends an OTP to the order its token names, never to an orderNo or reference of the body", async () => {
    const victim = await send(MERCHANT_PATHS.create, bankAccountRequest({ reference: 'order-7001' }), await withToken());
    const mine = await send(MERCHANT_PATHS.create, bankAccountRequest({ reference: 'order-7002' }), await withToken({ reference: 'order-7002' }));
    const myToken = { [ORDER_TOKEN_HEADER]: mine.headers.get(ORDER_TOKEN_HEADER)! };
    const answer = await send(MERCHANT_PATHS.otp, { country: 'EG', orderNo: victim.json.data.orderNo, reference: 'order-7001', otp: '11315632' }, myToken);
    expect(answer.json.data).toMatchObject({ orderNo: mine.json.data.orderNo, reference: 'order-7002' });
    expect((await stack.sandboxControl.order(victim.json.data.orderNo)).nextAction).toBe('INPUT_OTP');
  });

  it('sends an OTP again at most once in 30 seconds, however the browser is changed', async () => {
    let reached = 0;
    await start({ authorizeAction: (operation) => void (operation === 'resendOtp' && (reached += 1)) });
    const order = await send(MERCHANT_PATHS.create, bankAccountRequest({ reference: 'order-7001' }), await withToken());
    const token = { [ORDER_TOKEN_HEADER]: order.headers.get(ORDER_TOKEN_HEADER)! };
    const first = await send(MERCHANT_PATHS.resendOtp, {}, token);
    const second = await send(MERCHANT_PATHS.resendOtp, {}, token);
    expect(first.json.code).toBe('00000');
    expect(second.json).toMatchObject({ code: 'TOO_MANY_REQUESTS', data: { limit: 'resendOtp' } });
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(25);
    expect(reached).toBe(1);
  });

  it('caps the orders one checkout token and one client address start', async () => {
    await start({ limits: { createsPerCheckout: { limit: 2, windowSeconds: 600 }, createsPerClient: { limit: 3, windowSeconds: 600 } } });
    const token = await withToken({ reference: 'cart-1' });
    const answers = [];
    // Each retry after the payer left the pending order before ("Use another method"), as the element says.
    for (const reference of ['cart-1', 'cart-1--2', 'cart-1--3']) answers.push(await send(MERCHANT_PATHS.create, posRequest({ reference, leaving: reference !== 'cart-1' }), token));
    expect(answers.map((answer) => answer.json.data?.limit ?? answer.json.code)).toEqual(['00000', '00000', 'createsPerCheckout']);
    // Fresh tokens from one address: the per-client count (three so far, the refused one included) is spent.
    const other = await send(MERCHANT_PATHS.create, posRequest({ reference: 'cart-2' }), await withToken({ reference: 'cart-2' }));
    expect(other.json.data).toMatchObject({ limit: 'createsPerClient' });
    expect(await stack.sandboxControl.orders()).toHaveLength(2);
  });
});

describe("orders from the shop's authorize hook", () => {
  it("pays the hook's amount, and answers status only for an order the payer proves or the hook ties to them", async () => {
    const mine = 'cart-42';
    const seen: string[] = [];
    await start({
      orders: 'authorize',
      authorize: (order) => ({ ...order, reference: mine, amount: { total: 12_500, currency: 'EGP' } }),
      authorizeAction: (operation, body) => {
        seen.push(`${operation} ${JSON.stringify(body)}`);
        if (body['reference'] !== undefined && !String(body['reference']).startsWith(mine)) throw new OrderRejection('This is not your order.');
      },
    });
    const created = await send(MERCHANT_PATHS.create, posRequest({ reference: 'order-7001', amount: { total: 1, currency: 'EGP' } }));
    expect(created.json.code).toBe('00000');
    expect((await stack.sandboxControl.orders())[0]).toMatchObject({ reference: mine, amount: { total: 12_500 } });
    // Another payer's order by its number, without its order token; by a reference the hook refuses.
    const byNumber = await send(MERCHANT_PATHS.status, { country: 'EG', orderNo: created.json.data.orderNo });
    expect(byNumber.json).toMatchObject({ code: '02000', data: { reason: 'order-token' } });
    const byReference = await send(MERCHANT_PATHS.status, { country: 'EG', reference: 'order-7001' });
    expect(byReference.json).toMatchObject({ code: '02001', data: { errors: [{ rule: 'merchant' }] } });
    // The payer's own order: with its order token, or by a reference the hook ties to them.
    const proved = await send(MERCHANT_PATHS.status, {}, { [ORDER_TOKEN_HEADER]: created.headers.get(ORDER_TOKEN_HEADER)! });
    expect(proved.json.data).toMatchObject({ reference: mine, status: 'PENDING' });
    expect((await send(MERCHANT_PATHS.status, { country: 'EG', reference: mine })).json.data).toMatchObject({ reference: mine });
    expect(seen).toEqual([
      'status {"country":"EG","reference":"order-7001"}',
      `status {"country":"EG","orderNo":"${created.json.data.orderNo}"}`,
      `status {"country":"EG","reference":"${mine}"}`,
    ]);
  });
});

describe('text, logs and addresses', () => {
  it('refuses control characters, line breaks and bidi overrides in single-line fields, naming the field', async () => {
    for (const [field, value] of [
      ['notify.notifyUserName', 'Mona\u202Emoc.knab'],
      ['notify.notifyUserName', 'Mona\nBANK ALERT'],
      ['notify.notifyUserName', 'Mona\u0000'],
      ['notify.notifyUserName', 'Mona\u2068x\u2069'],
    ] as const) {
      const body = referenceCodeRequest({ reference: 'order-7001' }, { notifyUserName: value });
      const answer = await send(MERCHANT_PATHS.create, body, await withToken());
      expect(answer.json, JSON.stringify(value)).toMatchObject({ code: '02001', data: { errors: [{ field, rule: 'characters' }] } });
    }
    expect(await stack.sandboxControl.orders()).toEqual([]);
  });

  it('logs no line an attacker can forge: request values are escaped, quoted and capped', async () => {
    await start({ limits: { createsPerCheckout: { limit: 1, windowSeconds: 600 } } });
    const headers = await withToken({ reference: 'cart-9' });
    await send(MERCHANT_PATHS.create, posRequest({ reference: 'cart-9' }), headers);
    // Throttled: the refusal is logged with the order's reference.
    await send(MERCHANT_PATHS.create, posRequest({ reference: 'cart-9-2', sn: 'N7810\n2026-11-22 payment SUCCESS' }), headers);
    await send(MERCHANT_PATHS.create, '{"reference":"\n2026-11-22 svc-checkout: payment SUCCESS', headers);
    await send(MERCHANT_PATHS.otp, { otp: '1\n2026-11-22 forged' }, { [ORDER_TOKEN_HEADER]: 'ot1.forged' });
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) {
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
      expect(line.length).toBeLessThan(300);
    }
    // What the kit logs of a request goes through one function: quoted, escaped, capped.
    const logged = logValue(`x"\n2026-11-22 forged\u202e${'A'.repeat(200)}`);
    expect(logged).toBe(`"x\\"\\u000a2026-11-22 forged\\u202e${'A'.repeat(59)}...(221 chars)"`);
  });

  const live = { baseUrl: 'https://api.service.example' };

  it("refuses to trust the browser's order unless the service is the sandbox on loopback", () => {
    const base = { merchantId: shop.merchantId, privateKey: shop.privateKey };
    expect(() => createMerchantHandler({ ...base, environment: live, orders: 'browser' })).toThrow(/browser.*loopback|sandbox/i);
    expect(() => createMerchantHandler({ ...base, environment: { baseUrl: 'https://api.example.com' }, orders: 'browser' })).toThrow(/loopback/);
    expect(() => createMerchantHandler({ ...base, environment: { baseUrl: 'http://127.0.0.1:9' }, orders: 'browser' })).not.toThrow();
    // An authorize source needs both hooks, or status queries would be anyone's.
    expect(() => createMerchantHandler({ ...base, environment: live, orders: 'authorize', authorize: (order) => order })).toThrow(/authorizeAction/);
  });

  it('refuses a live address or callback URL that is not https, except on loopback', async () => {
    const base = { merchantId: shop.merchantId, privateKey: shop.privateKey };
    expect(() => createMerchantHandler({ ...base, environment: { baseUrl: 'http://api.example.com' } })).toThrow(/baseUrl.*https/);
    expect(() => createMerchantHandler({ ...base, environment: live, callbackUrl: 'http://shop.example/callbacks' })).toThrow(/callbackUrl.*https/);
    expect(() => createMerchantHandler({ ...base, environment: live, callbackUrl: 'https://shop.example/callbacks' })).not.toThrow();
    expect(() => createMerchantHandler({ ...base, environment: { baseUrl: 'http://localhost:9' }, callbackUrl: 'http://127.0.0.1:9/callbacks' })).not.toThrow();
    await expect(issueCheckoutToken(shop, { ...decided, callbackUrl: 'http://shop.example/callbacks' })).rejects.toThrow(/callbackUrl/);
  });
});

describe('limits that hold however a request is spelled', () => {
  /** A POS order of the attacker's own cart, and the headers of its order token. */
  async function ownOrder(reference = 'order-7001') {
    const created = await send(MERCHANT_PATHS.create, posRequest({ reference }), await withToken({ reference }));
    expect(created.json.code).toBe('00000');
    return { orderNo: created.json.data.orderNo as string, headers: { [ORDER_TOKEN_HEADER]: created.headers.get(ORDER_TOKEN_HEADER)! } };
  }

  it("answers one visitor's 400 status queries within a second with one query to the service", async () => {
    let now = Date.now();
    await start({ fetch: counting, now: () => now });
    const order = await ownOrder();
    const answers = await Promise.all(Array.from({ length: 400 }, () => send(MERCHANT_PATHS.status, {}, order.headers)));
    expect(answers.every((answer) => answer.json.code === '00000' && answer.json.data.status === 'PENDING')).toBe(true);
    expect(sentTo(SERVICE_PATHS.status)).toHaveLength(1);
    // And one after another, as a script in a loop: still the same answer within the second, then one more query.
    for (let index = 0; index < 50; index++) await send(MERCHANT_PATHS.status, {}, order.headers);
    expect(sentTo(SERVICE_PATHS.status)).toHaveLength(1);
    now += STATUS_SHARED_MS;
    await send(MERCHANT_PATHS.status, {}, order.headers);
    expect(sentTo(SERVICE_PATHS.status)).toHaveLength(2);
  });

  it('shares no failure, and no answer older than news the kit has had of the order (a verified callback)', async () => {
    const now = Date.now();
    await start({ fetch: counting, now: () => now }); // the kit's clock stands still: any answer kept would be shared
    const order = await ownOrder();
    await stack.sandboxControl.request('POST', '/sandbox/v1/faults', { kind: '50003', count: 1 });
    expect((await send(MERCHANT_PATHS.status, {}, order.headers)).json.code).toBe('50003');
    expect((await send(MERCHANT_PATHS.status, {}, order.headers)).json.data.status).toBe('PENDING');
    expect((await send(MERCHANT_PATHS.status, {}, order.headers)).json.data.status).toBe('PENDING');
    // Queries of this order (the kit asks about a checkout's other attempts on its own: docs/one-payment.md).
    const asked = () => sentTo(SERVICE_PATHS.status).filter((call) => call.body.orderNo === order.orderNo);
    expect(asked()).toHaveLength(2);
    await stack.sandboxControl.swipe(posRequest().sn, 'success');
    await eventually('the callback verified', () => stack.callbacks.length === 1);
    expect((await send(MERCHANT_PATHS.status, {}, order.headers)).json.data.status).toBe('SUCCESS');
    expect(asked()).toHaveLength(3);
  });

  it("refuses an order's status queries past its limit with Retry-After, and the service hears no more of them", async () => {
    let now = Date.now();
    await start({ fetch: counting, now: () => now, limits: { statusPerOrder: { limit: 3, windowSeconds: 60 } } });
    const order = await ownOrder();
    const answers = [];
    for (let index = 0; index < 5; index++) {
      now += STATUS_SHARED_MS; // past the shared answer each time: every query would reach the service
      answers.push(await send(MERCHANT_PATHS.status, {}, order.headers));
    }
    expect(answers.map((answer) => answer.json.data?.limit ?? answer.json.code)).toEqual(['00000', '00000', '00000', 'statusPerOrder', 'statusPerOrder']);
    expect(answers[3]!.json.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(answers[3]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(50);
    expect(Number(answers[3]!.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(sentTo(SERVICE_PATHS.status)).toHaveLength(3);
  });

  it("refuses one client's status queries across many orders past its limit", async () => {
    await start({ fetch: counting, limits: { statusPerClient: { limit: 4, windowSeconds: 60 } } });
    // A fresh checkout token per query (the shop's page hands one out at each visit), each naming its own order.
    const answers = [];
    for (let index = 1; index <= 6; index++) {
      const reference = `cart-${index}`;
      answers.push(await send(MERCHANT_PATHS.status, { reference }, await withToken({ reference })));
    }
    expect(answers.map((answer) => answer.json.data?.limit ?? answer.json.code)).toEqual(['02006', '02006', '02006', '02006', 'statusPerClient', 'statusPerClient']);
    expect(answers[4]!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(sentTo(SERVICE_PATHS.status)).toHaveLength(4);
  });

  it('caps the status streams one client holds (20 by default), says so clearly, and frees a place when one closes', async () => {
    const orders: Awaited<ReturnType<typeof ownOrder>>[] = [];
    for (let index = 1; index <= 21; index++) orders.push(await ownOrder(`cart-${index}`));
    const url = (order: { headers: Record<string, string> }) => `${stack.merchantUrl}${MERCHANT_PATHS.events}?token=${encodeURIComponent(order.headers[ORDER_TOKEN_HEADER]!)}`;
    for (const order of orders.slice(0, 20)) {
      const opened = await openStream(url(order));
      streams.push(opened);
      expect(opened.contentType).toMatch(/^text\/event-stream/);
    }
    const refused = await fetch(url(orders[20]!));
    expect(refused.status).toBe(200);
    expect(refused.headers.get('retry-after')).toBe('30');
    const answer = await refused.json();
    expect(answer).toMatchObject({ code: 'TOO_MANY_REQUESTS', data: { limit: 'streamsPerClient', retryAfterSeconds: 30 } });
    expect(answer.message).toContain('poll /payments/status instead');
    streams[0]!.close();
    await eventually('a place given back', async () => {
      const opened = await openStream(url(orders[20]!));
      streams.push(opened);
      return opened.contentType.startsWith('text/event-stream');
    });
  });

  it('counts one phone however it is written (+20…, 0020…, 0…, spaces), and sends the service each as the payer typed it', async () => {
    await start({ fetch: counting, limits: { messagesPerPhone: { limit: 3, windowSeconds: 3_600 }, messagesPerEmail: false } });
    const spellings = ['+201001234567', '00201001234567', '01001234567', '+20 100 123 4567'];
    const answers = [];
    for (const [index, notifyUserMobile] of spellings.entries()) {
      const reference = `spam-${index}`;
      const body = referenceCodeRequest({ reference }, { notifyMethod: 'SMS', notifyUserEmail: undefined, notifyUserMobile });
      answers.push(await send(MERCHANT_PATHS.create, body, await withToken({ reference })));
    }
    expect(answers.map((answer) => answer.json.data?.limit ?? answer.json.code)).toEqual(['00000', '00000', '00000', 'messagesPerPhone']);
    expect(sentTo(SERVICE_PATHS.create).map((call) => call.body.notify.notifyUserMobile)).toEqual(spellings.slice(0, 3));
  });

  it('counts one mailbox however it is written (a +tag, letter case, a trailing dot), and sends each as typed', async () => {
    await start({ fetch: counting, limits: { messagesPerEmail: { limit: 3, windowSeconds: 3_600 }, messagesPerPhone: false } });
    const spellings = ['mona@example.com', 'Mona+offers@Example.COM', 'mona@example.com.', 'MONA+2@EXAMPLE.COM.'];
    const answers = [];
    for (const [index, notifyUserEmail] of spellings.entries()) {
      const reference = `spam-${index}`;
      const body = referenceCodeRequest({ reference }, { notifyMethod: 'EMAIL', notifyUserMobile: undefined, notifyUserEmail });
      answers.push(await send(MERCHANT_PATHS.create, body, await withToken({ reference })));
    }
    expect(answers.map((answer) => answer.json.data?.limit ?? answer.json.code)).toEqual(['00000', '00000', '00000', 'messagesPerEmail']);
    expect(sentTo(SERVICE_PATHS.create).map((call) => call.body.notify.notifyUserEmail)).toEqual(spellings.slice(0, 3));
  });

  it('counts an IPv6 client by its /64 (configurable), an IPv4-mapped address as its IPv4 address', async () => {
    // A proxy the shop trusts writes the payer's address; one home's /64 offers a new address for every create.
    const fromAddress = (prefix?: number) =>
      start({
        fetch: counting,
        clientAddress: (request) => request.headers.get('x-client-address') ?? undefined,
        limits: { createsPerClient: { limit: 2, windowSeconds: 600 } },
        ...(prefix ? { ipv6ClientPrefix: prefix } : {}),
      });
    let serial = 0;
    const createFrom = async (address: string) => {
      const reference = `cart-${++serial}`;
      const answer = await send(MERCHANT_PATHS.create, posRequest({ reference }), { ...(await withToken({ reference })), 'X-Client-Address': address });
      return answer.json.data?.limit ?? answer.json.code;
    };
    await fromAddress();
    expect([await createFrom('2001:db8:7:1::1'), await createFrom('2001:db8:7:1:a:b:c:d'), await createFrom('[2001:0DB8:7:1:FFFF:FFFF:FFFF:FFFE]')]).toEqual([
      '00000',
      '00000',
      'createsPerClient',
    ]);
    expect(await createFrom('2001:db8:7:2::1')).toBe('00000'); // the next /64: another home
    expect([await createFrom('203.0.113.9'), await createFrom('::ffff:203.0.113.9'), await createFrom('::ffff:cb00:7109')]).toEqual([
      '00000',
      '00000',
      'createsPerClient',
    ]);
    // The order still carries the payer's own address.
    expect(sentTo(SERVICE_PATHS.create).map((call) => call.body.userClientIP)).toContain('2001:db8:7:1:a:b:c:d');

    await fromAddress(48);
    expect([await createFrom('2001:db8:7:1::1'), await createFrom('2001:db8:7:2::1'), await createFrom('2001:db8:7:3::1')]).toEqual([
      '00000',
      '00000',
      'createsPerClient',
    ]);
  });

  it("never takes a 3-D Secure return address's origin from the request's Origin or Host", async () => {
    await start({ fetch: counting });
    const body = (returnUrl: string, reference: string) => bankAccountRequest({ reference, bankAccountNumber: '2215381200', returnUrl });
    // Sent by hand, naming the attacker's site as the page's origin and as the host.
    const forged = await sendRaw(MERCHANT_PATHS.create, body('https://evil.example/shop/return', 'order-7001'), {
      ...(await withToken()),
      Origin: 'https://evil.example',
      Host: 'evil.example',
    });
    expect(forged.json).toMatchObject({ code: '02001', data: { errors: [{ field: 'returnUrl', rule: 'origin' }] } });
    // The kit's own address is no page of the shop either, unless the shop lists it.
    const own = await send(MERCHANT_PATHS.create, body(`${stack.merchantUrl}/return`, 'order-7001'), await withToken());
    expect(own.json).toMatchObject({ code: '02001', data: { errors: [{ field: 'returnUrl', rule: 'origin' }] } });
    expect(await stack.sandboxControl.orders()).toEqual([]);
    // The shop's configured origin (returnUrlOrigins), and a return address the checkout token fixes, are taken.
    const listed = await sendRaw(MERCHANT_PATHS.create, body('https://shop.example/pay/order-7001', 'order-7001'), { ...(await withToken()), Origin: 'https://evil.example' });
    expect(listed.json.code).toBe('00000');
    const fixed = await send(MERCHANT_PATHS.create, body('https://evil.example/ignored', 'order-7002'), await withToken({ reference: 'order-7002', returnUrl: 'https://pay.partner.example/back' }));
    expect(fixed.json.code).toBe('00000');
    expect(sentTo(SERVICE_PATHS.create).map((call) => call.body.returnUrl)).toEqual(['https://shop.example/pay/order-7001', 'https://pay.partner.example/back']);
  });

  it("stops an order's wrong codes at the kit's own limit, codes sent all at once too, before the service's lockout", async () => {
    await start({ fetch: counting, limits: { wrongCodesPerOrder: { limit: 2, windowSeconds: 3_600 } } });
    const created = await send(MERCHANT_PATHS.create, bankAccountRequest({ reference: 'order-7001' }), await withToken());
    const token = { [ORDER_TOKEN_HEADER]: created.headers.get(ORDER_TOKEN_HEADER)! };
    // Not a code at all: told at once, and it spends no attempt.
    expect((await send(MERCHANT_PATHS.otp, { otp: '12ab' }, token)).json).toMatchObject({ code: '02001', data: { errors: [{ field: 'otp' }] } });
    // Ten guesses at once.
    const guesses = await Promise.all(Array.from({ length: 10 }, (_, index) => send(MERCHANT_PATHS.otp, { otp: String(10_000_000 + index) }, token)));
    const outcomes = guesses.map((answer) => answer.json.data?.limit ?? answer.json.data?.errors?.[0]?.rule ?? answer.json.code);
    expect(outcomes.filter((outcome) => outcome === 'mismatch')).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome === 'wrongCodesPerOrder')).toHaveLength(8);
    expect(guesses.find((answer) => answer.json.code === 'TOO_MANY_REQUESTS')!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(sentTo(SERVICE_PATHS.inputOtp)).toHaveLength(2);
    // The service's own lockout (three wrong codes in the sandbox) was never reached: the order still waits.
    expect(await stack.sandboxControl.order(created.json.data.orderNo)).toMatchObject({ status: 'PENDING', nextAction: 'INPUT_OTP' });
    // The payer's right code is refused too, until the window ends: the order is locked at the kit.
    expect((await send(MERCHANT_PATHS.otp, { otp: '11315632' }, token)).json.data).toMatchObject({ limit: 'wrongCodesPerOrder' });
  });
});
