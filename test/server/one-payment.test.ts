/**
 * A checkout is one cart, one amount, one sequence (docs/one-payment.md), over HTTP against the real sandbox: the kit
 * decides which attempt a create makes, the next after every attempt the service knows, and none while an attempt at
 * the token's amount is paid or pending (unless the payer left it), nor once the cart was paid at another amount.
 * Attempts' references live where no shop's id can reach. Two kit processes creating at the same moment end with one
 * order. `openCheckout` tells the shop's page where a cart's checkout stands, as a status query does.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptReference, CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER, parseCheckoutToken } from '../../src/core/index.js';
import {
  CHANNELS,
  createMerchantHandler,
  issueCheckoutToken,
  MemoryCheckoutStore,
  ServiceClient,
  type CheckoutOrder,
  type MerchantHandler,
  type ServiceCallTrace,
} from '../../src/server/index.js';
import { checkoutOfCallback } from '../../src/server/checkouts/walk.js';
import { SandboxControl, startStack } from '../../src/sandbox/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
import { startKitProcess, type KitProcess } from '../support/kit-process.js';

type Stack = Awaited<ReturnType<typeof startStack>>;
let stack: Stack;
let handler: MerchantHandler;
let control: SandboxControl;
let serial = 0;

beforeAll(async () => {
  // The file pays many carts from one address: the per-client limit of creates is raised (attacks.test.ts tests it).
  stack = await startStack({ sandbox: { tickMs: 50 }, handler: { logger: { warn() {}, error() {} }, limits: { createsPerClient: { limit: 1_000, windowSeconds: 600 } } } });
  handler = stack.handler;
  control = new SandboxControl(stack.sandbox.url);
});
afterAll(() => stack.close());

/** A cart of its own, and the order its checkout token decides. */
function cart(total = 12_500): CheckoutOrder {
  serial += 1;
  return {
    reference: `cart-${Date.now().toString(36)}-${serial}`,
    amount: { total, currency: 'EGP' },
    country: 'EG',
    product: { name: 'Espresso beans', description: 'Single-origin beans' },
  };
}

/** A terminal of the test's own, so that a swipe pays this test's order. */
const terminal = () => `N7810181${String(8000 + serial).padStart(4, '0')}`;

/** A create of attempt `attempt` of a cart, as the element sends it, through the kit at `url`. */
async function create(url: string, order: CheckoutOrder, attempt: number, sn: string, extra: Record<string, unknown> = {}) {
  const token = await issueCheckoutToken(stack.merchant, order);
  const response = await fetch(`${url}${MERCHANT_PATHS.create}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
    body: JSON.stringify({ payMethod: 'Pos', sn, reference: attemptReference(order.reference, attempt), ...extra }),
  });
  return { body: (await response.json()) as { code: string; data: any }, orderToken: response.headers.get(ORDER_TOKEN_HEADER) };
}

async function ordersOf(order: CheckoutOrder): Promise<{ reference: string; status: string }[]> {
  const { orders } = (await control.request('GET', '/sandbox/v1/orders')).body as { orders: { reference: string; status: string }[] };
  return orders
    .filter((item) => item.reference === order.reference || item.reference.startsWith(`${order.reference}--`))
    .sort((a, b) => a.reference.length - b.reference.length || a.reference.localeCompare(b.reference));
}

const swipe = (sn: string, outcome: 'success' | 'fail') => control.request('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome });

/** A status query by reference with a checkout token, as the element sends it. */
async function statusBy(url: string, order: CheckoutOrder, reference: string, claims: Partial<CheckoutOrder> = {}) {
  const token = await issueCheckoutToken(stack.merchant, { ...order, ...claims });
  const response = await fetch(`${url}${MERCHANT_PATHS.status}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
    body: JSON.stringify({ country: 'EG', reference }),
  });
  return { body: (await response.json()) as { code: string; data: any }, orderToken: response.headers.get(ORDER_TOKEN_HEADER) };
}

/** The event the shop's hook got for an order's outcome, once it came (the kit's shared status answers of it are then dropped). */
async function heard(reference: string, status = 'SUCCESS') {
  for (let tries = 0; tries < 250; tries += 1) {
    const found = stack.callbacks.find((event) => event.body.reference === reference && event.body.status === status);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no ${status} callback of ${reference} reached the shop`);
}

/** The status queries the kits of this process send the service while `work` runs, by reference. */
async function statusQueriesDuring(work: () => Promise<unknown>): Promise<string[]> {
  const asked: string[] = [];
  const handlers = { start: (context: unknown) => void (((context as ServiceCallTrace).operation === 'status') && asked.push(String((context as ServiceCallTrace).reference))) };
  tracingChannel(CHANNELS.service).subscribe(handlers as never);
  try {
    await work();
  } finally {
    tracingChannel(CHANNELS.service).unsubscribe(handlers as never);
  }
  return asked;
}

/** An order made at the service as the kit's earlier scheme made a checkout's attempt n (`<cart>-n`). */
async function legacyAttempt(order: CheckoutOrder, attempt: number, sn: string) {
  const service = new ServiceClient({ ...stack.merchant, environment: { baseUrl: stack.sandbox.url } });
  const answer = await service.createPayment({
    payMethod: 'Pos',
    sn,
    reference: attempt === 1 ? order.reference : `${order.reference}-${attempt}`,
    amount: order.amount,
    country: order.country,
    product: order.product,
    callbackUrl: `${stack.url}${MERCHANT_PATHS.callbacks}?checkout=${order.reference}&attempt=${attempt}`,
  });
  expect(answer.code).toBe('00000');
}

describe('the kit never starts a second payment of one checkout', () => {
  it('answers a plain create of attempt 2 with attempt 1, still pending, and makes no order', async () => {
    const order = cart();
    const sn = terminal();
    expect((await create(stack.url, order, 1, sn)).body.code).toBe('00000');
    const second = await create(stack.url, order, 2, sn);
    expect(second.body).toMatchObject({ code: 'ORDER_EXISTS', data: { reference: order.reference, status: 'PENDING' } });
    expect(second.orderToken).toMatch(/^ot1\./);
    expect(await ordersOf(order)).toHaveLength(1);
  });

  it('makes attempt 2 when the payer left attempt 1 on purpose, and both reach the service', async () => {
    const order = cart();
    const sn = terminal();
    await create(stack.url, order, 1, sn);
    expect((await create(stack.url, order, 2, sn, { leaving: true })).body).toMatchObject({ code: '00000', data: { reference: `${order.reference}--2` } });
    expect((await ordersOf(order)).map((item) => item.status)).toEqual(['PENDING', 'PENDING']);
  });

  it('never makes another attempt of a paid checkout, left or not', async () => {
    const order = cart();
    const sn = terminal();
    await create(stack.url, order, 1, sn);
    await swipe(sn, 'success');
    for (const extra of [{}, { leaving: true }]) {
      expect((await create(stack.url, order, 2, sn, extra)).body).toMatchObject({ code: 'ORDER_EXISTS', data: { reference: order.reference, status: 'SUCCESS' } });
    }
    expect(await ordersOf(order)).toHaveLength(1);
  });

  it('makes attempt 2 after attempt 1 failed', async () => {
    const order = cart();
    const sn = terminal();
    await create(stack.url, order, 1, sn);
    await swipe(sn, 'fail');
    expect((await create(stack.url, order, 2, sn)).body.code).toBe('00000');
    expect((await ordersOf(order)).map((item) => item.status)).toEqual(['FAIL', 'PENDING']);
  });

  it("makes the checkout's next attempt whatever attempt the request names: a stale tab, a reload, a hand-made request", async () => {
    const order = cart();
    const sn = terminal();
    await create(stack.url, order, 1, sn);
    await swipe(sn, 'fail');
    // A tab that counted one attempt too many (a reload after a failure), then one that counted none.
    expect((await create(stack.url, order, 3, sn)).body).toMatchObject({ code: '00000', data: { reference: `${order.reference}--2` } });
    await swipe(sn, 'fail');
    expect((await create(stack.url, order, 1, sn)).body).toMatchObject({ code: '00000', data: { reference: `${order.reference}--3` } });
    expect((await ordersOf(order)).map((item) => item.reference)).toEqual([order.reference, `${order.reference}--2`, `${order.reference}--3`]);
  });

  it('makes no order when the service cannot say how the earlier attempts ended', async () => {
    const order = cart();
    const sn = terminal();
    await create(stack.url, order, 1, sn);
    await swipe(sn, 'fail');
    await control.request('POST', '/sandbox/v1/faults', { kind: '50003', count: 1 });
    expect((await create(stack.url, order, 2, sn)).body.code).toBe('50003');
    expect(await ordersOf(order)).toHaveLength(1);
  });
});

describe('a left attempt paid after all', () => {
  it("reaches the shop marked as a second payment of the checkout, with the other attempt's reference", async () => {
    const order = cart();
    const first = terminal();
    serial += 1;
    const second = terminal();
    await create(stack.url, order, 1, first);
    await create(stack.url, order, 2, second, { leaving: true });
    await swipe(second, 'success');
    const amount = order.amount;
    expect((await heard(`${order.reference}--2`)).checkout).toEqual({ reference: order.reference, attempt: 2, amount, alsoPaid: [] });
    await swipe(first, 'success');
    expect((await heard(order.reference)).checkout).toEqual({ reference: order.reference, attempt: 1, amount, alsoPaid: [`${order.reference}--2`] });
  });

  it('believes what a callback address says of its attempt only for the signed body\'s reference, and its amount only under the kit\'s tag', async () => {
    const key = stack.merchant.privateKey;
    const store = new MemoryCheckoutStore();
    const { callbackUrlOf } = await import('../../src/server/checkouts/walk.js');
    const made = (await callbackUrlOf('https://shop.example/callbacks', key, 'cart-1', 2, { total: 1_000, currency: 'EGP' }))!;
    expect(await checkoutOfCallback(made, 'cart-1--2', key, store)).toEqual({ reference: 'cart-1', attempt: 2, amount: { total: 1_000, currency: 'EGP' } });
    // Another amount written over the kit's: not believed; another reference named: not this order's checkout.
    expect(await checkoutOfCallback(made.replace('amount=1000', 'amount=10'), 'cart-1--2', key, store)).toEqual({ reference: 'cart-1', attempt: 2 });
    expect(await checkoutOfCallback(made, 'cart-1--2', 'another-key', store)).toEqual({ reference: 'cart-1', attempt: 2 });
    expect(await checkoutOfCallback(made, 'cart-1--3', key, store)).toBeUndefined();
    expect(await checkoutOfCallback(made, 'cart-9', key, store)).toBeUndefined();
    expect(await checkoutOfCallback('https://shop.example/callbacks', 'cart-1', key, store)).toBeUndefined();
    // The earlier scheme's address, as an order made before the change carries it: the checkout, no amount.
    expect(await checkoutOfCallback('https://shop.example/callbacks?checkout=cart-1&attempt=2', 'cart-1-2', key, store)).toEqual({ reference: 'cart-1', attempt: 2 });
    expect(await checkoutOfCallback('https://shop.example/callbacks?checkout=cart&attempt=2', 'cart-1-2', key, store)).toBeUndefined();
    // A callback to the merchant's webhook (no address of the kit's): the kit's record of the attempt, when it has one.
    store.forwarding('cart-5', 1, { total: 700, currency: 'EGP' });
    expect(await checkoutOfCallback('https://shop.example/webhook', 'cart-5', key, store)).toEqual({ reference: 'cart-5', attempt: 1, amount: { total: 700, currency: 'EGP' } });
  });
});

describe('two kit processes creating the same checkout at the same moment', () => {
  let kits: KitProcess[];
  beforeAll(async () => {
    await assertDistFresh();
    kits = await Promise.all(['a', 'b'].map((name) => startKitProcess(name, { SANDBOX_URL: stack.sandbox.url })));
  });
  afterAll(async () => {
    await Promise.all(kits.map((kit) => kit.stop()));
  });

  it('end with one order, for a first attempt and for a second after a leave: the other process answers with it', async () => {
    const order = cart();
    const sn = terminal();
    const first = await Promise.all(kits.map((kit) => create(kit.url, order, 1, sn)));
    expect(first.map((answer) => answer.body.code).sort()).toEqual(['00000', 'ORDER_EXISTS']);
    expect(first.map((answer) => answer.body.data.reference)).toEqual([order.reference, order.reference]);
    const second = await Promise.all(kits.map((kit) => create(kit.url, order, 2, sn, { leaving: true })));
    expect(second.map((answer) => answer.body.code).sort()).toEqual(['00000', 'ORDER_EXISTS']);
    expect(await ordersOf(order)).toHaveLength(2);
  });

  it('make the next attempt from a process that never saw the checkout, whatever attempt the page names', async () => {
    const order = cart();
    const sn = terminal();
    expect((await create(kits[0]!.url, order, 1, sn)).body.code).toBe('00000');
    await swipe(sn, 'fail');
    // A fresh browser with no storage and a token from before the failure: it names attempt 1, which exists.
    expect((await create(kits[1]!.url, order, 1, sn)).body).toMatchObject({ code: '00000', data: { reference: `${order.reference}--2` } });
    expect((await ordersOf(order)).map((item) => item.status)).toEqual(['FAIL', 'PENDING']);
  });
});

describe('openCheckout: where a cart stands, in the token the page renders', () => {
  const claimsOf = (token: string) => {
    const parsed = parseCheckoutToken(token);
    if (!parsed.ok) throw new Error('not a checkout token');
    return parsed.token.claims;
  };

  it('starts a new cart at its first attempt, with a form', async () => {
    const opened = await handler.openCheckout(cart());
    expect(opened).toMatchObject({ state: 'new', attempt: 1, started: false });
    expect(claimsOf(opened.token)).toMatchObject({ attempt: 1 });
    expect(claimsOf(opened.token).started).toBeUndefined();
  });

  it('names the attempt in progress, then the paid one, and the next after a failure', async () => {
    const order = cart();
    const sn = terminal();
    await create(stack.url, order, 1, sn);
    const pending = await handler.openCheckout(order);
    expect(pending).toMatchObject({ state: 'pending', attempt: 1, started: true, order: { reference: order.reference, status: 'PENDING' } });
    expect(claimsOf(pending.token)).toMatchObject({ attempt: 1, started: true });
    await swipe(sn, 'fail');
    await heard(order.reference, 'FAIL'); // its callback came: what the kit shares of the order is dropped
    expect(await handler.openCheckout(order)).toMatchObject({ state: 'failed', attempt: 2, started: false });
    await create(stack.url, order, 2, sn);
    await swipe(sn, 'success');
    await heard(`${order.reference}--2`);
    const paid = await handler.openCheckout(order);
    expect(paid).toMatchObject({ state: 'paid', attempt: 2, started: true, order: { reference: `${order.reference}--2`, status: 'SUCCESS', amount: order.amount } });
  });
});

describe('a checkout is one amount', () => {
  it('a cart paid at EGP 10, then grown to EGP 500: never reported paid, no order made, the shop told', async () => {
    const small = cart(1_000);
    const grown = { ...small, amount: { total: 50_000, currency: 'EGP' } };
    const sn = terminal();
    await create(stack.url, small, 1, sn);
    await swipe(sn, 'success');
    expect(await handler.openCheckout(small)).toMatchObject({ state: 'paid', order: { amount: small.amount } });
    const opened = await handler.openCheckout(grown);
    expect(opened).toMatchObject({ state: 'changed', started: true, order: { reference: small.reference, status: 'SUCCESS', amount: small.amount } });
    // A page that renders its token anyway: Pay makes no order and says why, whatever attempt it names.
    for (const attempt of [1, 2]) {
      const answer = await create(stack.url, grown, attempt, sn);
      expect(answer.body).toMatchObject({ code: 'CHECKOUT_CHANGED', data: { reference: small.reference, status: 'SUCCESS', amount: { total: 1_000 } } });
      expect(answer.orderToken).toBeNull();
    }
    // Its token reads that order's status (the page shows it is not this payment), never gets the order's own token.
    const status = await statusBy(stack.url, grown, small.reference);
    expect(status.body).toMatchObject({ code: '00000', data: { status: 'SUCCESS', amount: { total: 1_000 } } });
    expect(status.orderToken).toBeNull();
    expect((await statusBy(stack.url, small, small.reference)).orderToken).toMatch(/^ot1\./);
    expect(await ordersOf(small)).toHaveLength(1);
  });

  it('a cart whose attempt is pending at another amount: the next attempt is made for the new amount, and a late payment of the old one is marked', async () => {
    const before = cart(1_500);
    const after = { ...before, amount: { total: 3_500, currency: 'EGP' } };
    const first = terminal();
    serial += 1;
    const second = terminal();
    await create(stack.url, before, 1, first);
    expect(await handler.openCheckout(after)).toMatchObject({ state: 'failed', attempt: 2, started: false });
    expect((await create(stack.url, after, 2, second)).body).toMatchObject({ code: '00000', data: { reference: `${before.reference}--2`, amount: { total: 3_500 } } });
    await swipe(second, 'success');
    await swipe(first, 'success');
    // Each payment says what its attempt was opened for beside what was paid: the old one is no payment of the cart now.
    const late = await heard(before.reference);
    expect(late.checkout).toMatchObject({ reference: before.reference, attempt: 1, amount: { total: 1_500, currency: 'EGP' }, alsoPaid: [`${before.reference}--2`] });
    expect(late.body.amount).toEqual({ total: 1_500, currency: 'EGP' });
    expect((await heard(`${before.reference}--2`)).checkout).toMatchObject({ attempt: 2, amount: { total: 3_500, currency: 'EGP' } });
    expect(await handler.openCheckout(after)).toMatchObject({ state: 'paid', order: { reference: `${before.reference}--2` } });
  });
});

describe('attempt references no shop id can reach', () => {
  it("refuses a checkout whose own id is an attempt's, or too long to have attempts, naming the rule", async () => {
    for (const [reference, rule] of [
      ['cart-7--2', 'reserved'],
      ['cart-7--10', 'reserved'],
      ['x'.repeat(61), 'maxLength'],
    ] as const) {
      await expect(issueCheckoutToken(stack.merchant, { ...cart(), reference })).rejects.toMatchObject({ violations: [{ field: 'reference', rule }] });
      await expect(handler.openCheckout({ ...cart(), reference })).rejects.toMatchObject({ violations: [{ field: 'reference', rule }] });
    }
    // Ids that merely look like one are the shop's own.
    for (const reference of ['cart-7-2', 'cart-7--', 'cart--7x', 'x'.repeat(60)]) expect(await issueCheckoutToken(stack.merchant, { ...cart(), reference })).toMatch(/^ct1\./);
  });

  it("a cart whose own id is another's attempt of the earlier scheme (V-2) is its own checkout", async () => {
    const v = cart();
    const other = { ...cart(), reference: `${v.reference}-2` };
    const sn = terminal();
    await create(stack.url, v, 1, sn);
    await swipe(sn, 'fail');
    // The other cart opens and pays first.
    serial += 1;
    const theirs = terminal();
    expect((await handler.openCheckout(other)).state).toBe('new');
    await create(stack.url, other, 1, theirs);
    await swipe(theirs, 'success');
    // V is not paid; its retry is made; its token cannot read the other cart's order.
    expect(await handler.openCheckout(v)).toMatchObject({ state: 'failed', attempt: 2 });
    expect((await create(stack.url, v, 2, sn)).body).toMatchObject({ code: '00000', data: { reference: `${v.reference}--2` } });
    expect((await statusBy(stack.url, v, other.reference)).body).toMatchObject({ code: '02000', data: { reason: 'reference' } });
  });

  it('two carts whose 60-character ids share their first 58 never share an attempt', async () => {
    const stem = `c${Date.now().toString(36)}`.padEnd(58, 'x');
    const [a, b] = [{ ...cart(), reference: `${stem}aa` }, { ...cart(), reference: `${stem}bb` }];
    const [snA, snB] = [terminal(), (serial += 1, terminal())];
    for (const [order, sn] of [[a, snA], [b, snB]] as const) {
      await create(stack.url, order, 1, sn);
      await swipe(sn, 'fail');
      expect((await create(stack.url, order, 2, sn)).body).toMatchObject({ code: '00000', data: { reference: `${order.reference}--2` } });
    }
    expect(attemptReference(a.reference, 99)).toHaveLength(64);
  });

  it('an attempt the earlier scheme made (V-2, paid) keeps cart V paid: found, shown, and covered by its token', async () => {
    const v = cart();
    const sn = terminal();
    await legacyAttempt(v, 1, sn);
    await swipe(sn, 'fail');
    await legacyAttempt(v, 2, sn);
    await swipe(sn, 'success');
    const opened = await handler.openCheckout(v);
    expect(opened).toMatchObject({ state: 'paid', started: true, order: { reference: `${v.reference}-2`, status: 'SUCCESS' } });
    const claims = parseCheckoutToken(opened.token);
    expect(claims.ok && claims.token.claims).toMatchObject({ started: `${v.reference}-2` });
    expect((await create(stack.url, v, 2, sn)).body).toMatchObject({ code: 'ORDER_EXISTS', data: { reference: `${v.reference}-2` } });
    // The page finds it with the token the kit issued, which names it; a token without it does not reach it.
    const found = await fetch(`${stack.url}${MERCHANT_PATHS.status}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: opened.token },
      body: JSON.stringify({ country: 'EG', reference: `${v.reference}-2` }),
    });
    expect(await found.json()).toMatchObject({ code: '00000', data: { status: 'SUCCESS' } });
    expect((await statusBy(stack.url, v, `${v.reference}-2`)).body).toMatchObject({ code: '02000', data: { reason: 'reference' } });
    expect((await ordersOf(v)).length + 1).toBe(2);
  });
});

describe('openCheckout is a status query', () => {
  it('asks the service nothing for a cart its record proves has no order, and asks again once a create was forwarded', async () => {
    const order = cart();
    expect(await statusQueriesDuring(() => handler.openCheckout(order))).toEqual([order.reference]);
    expect(await statusQueriesDuring(async () => {
      for (let load = 0; load < 20; load += 1) expect((await handler.openCheckout(order)).state).toBe('new');
    })).toEqual([]);
    await create(stack.url, order, 1, terminal());
    expect(await statusQueriesDuring(() => handler.openCheckout(order))).toContain(order.reference);
  });

  it("shares one order's query between the pages that open it at once, and counts each client's against its limit", async () => {
    const kit = createMerchantHandler({
      ...stack.merchant,
      environment: { baseUrl: stack.sandbox.url },
      logger: { warn() {}, error() {} },
      limits: { statusPerClient: { limit: 3, windowSeconds: 60 } },
    });
    const order = cart();
    await create(stack.url, order, 1, terminal());
    const asked = await statusQueriesDuring(() => Promise.all(Array.from({ length: 5 }, () => kit.openCheckout(order, { client: '203.0.113.7' }))));
    expect(asked.filter((reference) => reference === order.reference)).toHaveLength(1);
    // One client opening carts one after another: past its limit, the page still gets a checkout it can render.
    const states = [];
    for (let load = 0; load < 4; load += 1) states.push((await kit.openCheckout(cart(), { client: '203.0.113.9' })).state);
    expect(states).toEqual(['new', 'new', 'new', 'unknown']);
    const throttled = await kit.openCheckout(cart(), { client: '203.0.113.9' });
    expect(parseCheckoutToken(throttled.token).ok).toBe(true);
    // Node's request (Express's req) is counted by its socket's address: the same client, however it is spelled.
    const nodeRequest = { socket: { remoteAddress: '::ffff:203.0.113.9' }, headers: { host: 'shop.example' } };
    expect((await kit.openCheckout(cart(), { request: nodeRequest })).state).toBe('unknown');
    // Another client is counted on its own.
    expect((await kit.openCheckout(cart(), { client: '203.0.113.10' })).state).toBe('new');
    kit.close();
  });
});
