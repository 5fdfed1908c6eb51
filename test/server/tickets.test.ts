/**
 * Tickets (src/server/payments/tickets.ts): where the shop's `authorize` hook decides its orders, the isolated frame's
 * bank account create is proved by a ticket the page asked for with the payer's session, never by a cookie the frame
 * cannot send. Each request is sent as the browser would send it: the ticket from the page's origin with its cookie,
 * the create from the frame's opaque origin (`Origin: null`) without one, in front of the real sandbox; across
 * processes, through a real redis-server.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BANK_ACCOUNT_DETAILS, CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, shownPaymentOf, TICKET_HEADER } from '../../src/core/index.js';
import { createMerchantHandler, issueCheckoutToken, OrderRejection, type MerchantHandlerOptions } from '../../src/server/index.js';
import { connectRedis, type RedisKit } from '../../src/server/redis/connect.js';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { bankAccountRequest } from '../core/fixtures.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { wire, type Wired } from '../support/sandbox-fixture.js';

const SESSION = 'shop-session=payer-1';
const CART = { reference: 'cart-42', amount: { total: 12_500, currency: 'EGP' } };
/** The payer's bank account details: the rows the isolated frame checks (src/core/rules.ts), the fields a ticket never carries. */
const BANK = Object.keys(BANK_ACCOUNT_DETAILS.fields) as (keyof ReturnType<typeof bankAccountRequest>)[];

let stack: Wired;
/** What `authorize` saw: each order's reference and amount, and whether the request carried the session. */
let authorized: { reference: string; total: number; session: boolean }[] = [];

/** The shop's hooks: its cart is found by the payer's session cookie alone. */
const authorizeMode = (extra: Partial<MerchantHandlerOptions> = {}): Partial<MerchantHandlerOptions> => ({
  orders: 'authorize',
  merchantName: 'Cairo Coffee',
  authorize(order, request) {
    const session = (request.headers.get('cookie') ?? '').includes(SESSION);
    authorized.push({ reference: order.reference, total: order.amount.total, session });
    if (!session) throw new OrderRejection('Your session has ended: reload the page.', { field: 'reference' });
    return { ...order, ...CART };
  },
  authorizeAction(_operation, body, request) {
    if (!(request.headers.get('cookie') ?? '').includes(SESSION)) throw new OrderRejection('Not your order.', { field: 'reference' });
    if (body['reference'] !== undefined && body['reference'] !== CART.reference) throw new OrderRejection('Not your order.', { field: 'reference' });
  },
  ...extra,
});

beforeEach(() => {
  authorized = [];
});
afterEach(async () => {
  await stack?.close();
});

/** The create less the bank details, as the page asks a ticket for it: the amount and reference the page had. */
function pageOrder(overrides: Record<string, unknown> = {}) {
  const order: Record<string, unknown> = bankAccountRequest({ reference: 'page-reference', amount: { total: 1, currency: 'EGP' }, ...overrides });
  for (const field of BANK) delete order[field];
  return order;
}

/** A call from the shop's page: same origin, with the payer's cookie. */
async function fromPage(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.merchantUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: SESSION, ...headers },
    body: JSON.stringify(body),
  });
  return { headers: response.headers, json: (await response.json()) as any };
}

/** The isolated frame's create: an opaque origin, no cookie, the ticket in its header, the bank details added. */
async function fromFrame(ticket: string, body: Record<string, unknown> = {}) {
  const response = await fetch(`${stack.merchantUrl}${MERCHANT_PATHS.create}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: 'null', [TICKET_HEADER]: ticket },
    body: JSON.stringify({ ...pageOrder(), ...bankAccountRequest(), ...body }),
  });
  return { headers: response.headers, json: (await response.json()) as any };
}

async function ticketFor(body = pageOrder()): Promise<{ ticket: string; reference: string }> {
  const answer = await fromPage(MERCHANT_PATHS.ticket, body);
  expect(answer.json.code, JSON.stringify(answer.json)).toBe('00000');
  return answer.json.data;
}

describe("a ticket for the isolated frame's create, where authorize decides the order", () => {
  it('runs authorize with the payer’s session, and makes the order it decided from the frame’s create, which has none', async () => {
    stack = await wire({ handler: authorizeMode() });
    const { ticket, reference } = await ticketFor();
    expect(reference).toBe(CART.reference);
    // What the frame shows the payer: the amount the shop decided, and its name.
    expect(shownPaymentOf(ticket)).toEqual({ total: 12_500, currency: 'EGP', merchantName: 'Cairo Coffee' });
    // The frame's body says another amount and reference: the kit takes only its bank details.
    const created = await fromFrame(ticket, { amount: { total: 1, currency: 'EGP' }, reference: 'not-mine' });
    expect(created.json.code, JSON.stringify(created.json)).toBe('00000');
    expect(created.headers.get('access-control-allow-origin')).toBe('null');
    const [order] = await stack.sandboxControl.orders();
    expect(order).toMatchObject({ reference: CART.reference, amount: { total: 12_500, currency: 'EGP' }, payMethod: 'BankAccount' });
    // authorize ran once, when the page asked, with the session; the frame's create was not authorized again.
    expect(authorized).toEqual([{ reference: 'page-reference', total: 1, session: true }]);
  });

  it('finds a create whose answer was lost by its reference, with the session and no new ticket', async () => {
    stack = await wire({ handler: authorizeMode() });
    const { ticket, reference } = await ticketFor();
    const created = await fromFrame(ticket);
    expect(created.json.code).toBe('00000');
    // The page never read that answer: it asks by the reference the ticket named.
    const found = await fromPage(MERCHANT_PATHS.status, { country: 'EG', reference });
    expect(found.json.data).toMatchObject({ reference: CART.reference, orderNo: created.json.data.orderNo, status: 'PENDING' });
  });

  it('makes one order of a ticket: a second create with it is refused as used, and makes none', async () => {
    stack = await wire({ handler: authorizeMode() });
    const { ticket } = await ticketFor();
    const answers = await Promise.all([fromFrame(ticket), fromFrame(ticket), fromFrame(ticket)]);
    expect(answers.map((answer) => answer.json.code).sort()).toEqual(['00000', '02000', '02000']);
    expect(answers.find((answer) => answer.json.code === '02000')!.json.data).toEqual({ reason: 'used' });
    expect(await stack.sandboxControl.orders()).toHaveLength(1);
  });

  it('keeps the ticket while the frame’s create breaks a rule: the payer fixes the field and pays with it', async () => {
    stack = await wire({ handler: authorizeMode() });
    const { ticket } = await ticketFor();
    const wrong = await fromFrame(ticket, { bankCode: '#' });
    expect(wrong.json).toMatchObject({ code: '02001', data: { errors: [{ field: 'bankCode' }] } });
    expect((await fromFrame(ticket)).json.code).toBe('00000');
  });

  it('refuses a ticket altered, signed by another key, or past its time, and a create without one or its session', async () => {
    let now = Date.now();
    stack = await wire({ handler: authorizeMode({ now: () => now }) });
    const { ticket } = await ticketFor();
    const [kind, payload, tag] = ticket.split('.') as [string, string, string];
    // The amount the frame would show, raised: the tag no longer holds.
    const raised = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), amt: 1 })).toString('base64url');
    expect((await fromFrame(`${kind}.${raised}.${tag}`)).json.data).toEqual({ reason: 'forged' });
    const other = await issueCheckoutToken({ merchantId: DEFAULT_MERCHANT.merchantId, privateKey: 'another-key' }, { ...CART, country: 'EG', product: { name: 'x', description: 'x' } });
    expect((await fromFrame(other)).json.data).toEqual({ reason: 'malformed' });
    // A create without a ticket and without the session: authorize refuses it, as ever.
    const bare = await fetch(`${stack.merchantUrl}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'null' },
      body: JSON.stringify(bankAccountRequest()),
    });
    expect(((await bare.json()) as any).data.errors[0]).toMatchObject({ field: 'reference', rule: 'merchant' });
    now += 16 * 60_000;
    expect((await fromFrame(ticket)).json.data).toEqual({ reason: 'expired' });
    expect(await stack.sandboxControl.orders()).toHaveLength(0);
  });

  it('asks for no bank details: a ticket request that carries one is refused naming it, as is one for another method', async () => {
    stack = await wire({ handler: authorizeMode() });
    for (const field of Object.keys(BANK_ACCOUNT_DETAILS.fields)) {
      const answer = await fromPage(MERCHANT_PATHS.ticket, { ...pageOrder(), [field]: bankAccountRequest()[field as (typeof BANK)[number]] });
      expect(answer.json).toMatchObject({ code: '02001', data: { errors: [{ field, rule: 'isolated' }] } });
    }
    const pos = await fromPage(MERCHANT_PATHS.ticket, { ...pageOrder(), payMethod: 'Pos' });
    expect(pos.json).toMatchObject({ code: '02001', data: { errors: [{ field: 'payMethod' }] } });
    expect(authorized).toEqual([]);
  });

  it('says authorize’s refusal to the page that asked, and issues no ticket', async () => {
    stack = await wire({ handler: authorizeMode() });
    const response = await fetch(`${stack.merchantUrl}${MERCHANT_PATHS.ticket}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(pageOrder()),
    });
    const answer = (await response.json()) as any;
    expect(answer).toMatchObject({ code: '02001', data: { errors: [{ field: 'reference', rule: 'merchant', message: 'Your session has ended: reload the page.' }] } });
  });

  it('counts tickets per client (ticketsPerClient), before authorize runs', async () => {
    stack = await wire({ handler: authorizeMode({ limits: { ticketsPerClient: { limit: 2, windowSeconds: 600 } } }) });
    await ticketFor();
    await ticketFor();
    const third = await fromPage(MERCHANT_PATHS.ticket, pageOrder());
    expect(third.json).toMatchObject({ code: 'TOO_MANY_REQUESTS', data: { limit: 'ticketsPerClient' } });
    expect(authorized).toHaveLength(2);
  });

  it('is no proof where checkout tokens decide the orders: the ticket route answers as a create without a token', async () => {
    stack = await wire();
    const answer = await fromPage(MERCHANT_PATHS.ticket, pageOrder());
    expect(answer.json).toMatchObject({ code: '02000', data: { reason: 'missing' } });
    // And a create that carries a ticket but no checkout token is refused the same way.
    const token = await issueCheckoutToken(DEFAULT_MERCHANT, { ...CART, country: 'EG', product: { name: 'x', description: 'x' } });
    const created = await fetch(`${stack.merchantUrl}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TICKET_HEADER]: 'tk1.e30.x', [CHECKOUT_TOKEN_HEADER]: `${token}x` },
      body: JSON.stringify(bankAccountRequest(CART)),
    });
    expect(((await created.json()) as any).code).toBe('02000');
  });
});

describe('a ticket across processes', () => {
  let redis: TestRedis;
  const kits: RedisKit[] = [];
  afterAll(async () => {
    await Promise.all(kits.map((kit) => kit.close()));
    await redis?.close();
  });

  it('is issued by one process and used by another, once: the order waits in Redis', async () => {
    redis = await startRedis();
    const keyPrefix = `tickets${Date.now()}:`;
    for (let index = 0; index < 2; index++) kits.push(await connectRedis({ url: redis.url, keyPrefix, logger: { warn() {}, error() {} } }));
    stack = await wire({ handler: authorizeMode() });
    const processes = kits.map((kit) =>
      createMerchantHandler({
        merchantId: DEFAULT_MERCHANT.merchantId,
        privateKey: DEFAULT_MERCHANT.privateKey,
        environment: { baseUrl: stack.sandbox.url },
        returnUrlOrigins: ['https://shop.example'],
        logger: { warn() {}, error() {} },
        ...authorizeMode(),
        ...kit.stores,
      }),
    );
    const [one, two] = processes as [(typeof processes)[0], (typeof processes)[0]];
    const post = (handler: typeof one, path: string, body: unknown, headers: Record<string, string>) =>
      handler(new Request(`http://127.0.0.1${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) })).then(
        (response) => response.json() as Promise<any>,
      );
    const { data } = await post(one, MERCHANT_PATHS.ticket, pageOrder(), { Cookie: SESSION });
    const frameBody = { ...pageOrder(), ...bankAccountRequest() };
    const created = await post(two, MERCHANT_PATHS.create, frameBody, { Origin: 'null', [TICKET_HEADER]: data.ticket });
    expect(created.code, JSON.stringify(created)).toBe('00000');
    const again = await post(one, MERCHANT_PATHS.create, frameBody, { Origin: 'null', [TICKET_HEADER]: data.ticket });
    expect(again).toMatchObject({ code: '02000', data: { reason: 'used' } });
    expect(await stack.sandboxControl.orders()).toHaveLength(1);
  });
});
