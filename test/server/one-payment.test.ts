/**
 * One checkout, one payment (README, "One checkout, one payment"), over HTTP against the real sandbox: the kit makes
 * attempt n of a checkout only once the service says every earlier attempt ended unpaid, or the payer left a pending
 * one on purpose; otherwise it answers with the earlier order. Two kit processes creating at the same moment end
 * with one order. `openCheckout` tells the shop's page where a cart's checkout stands.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptReference, CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER, parseCheckoutToken } from '../../src/core/index.js';
import { issueCheckoutToken, type CheckoutOrder, type MerchantHandler } from '../../src/server/index.js';
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
  stack = await startStack({ sandbox: { tickMs: 50 }, handler: { logger: { warn() {}, error() {} } } });
  handler = stack.handler;
  control = new SandboxControl(stack.sandbox.url);
});
afterAll(() => stack.close());

/** A cart of its own, and the order its checkout token decides. */
function cart(): CheckoutOrder {
  serial += 1;
  return {
    reference: `cart-${Date.now().toString(36)}-${serial}`,
    amount: { total: 12_500, currency: 'EGP' },
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
    .filter((item) => item.reference === order.reference || item.reference.startsWith(`${order.reference}-`))
    .sort((a, b) => a.reference.length - b.reference.length || a.reference.localeCompare(b.reference));
}

const swipe = (sn: string, outcome: 'success' | 'fail') => control.request('POST', `/sandbox/v1/pos/${sn}/swipe`, { outcome });

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
    expect((await create(stack.url, order, 2, sn, { leaving: true })).body).toMatchObject({ code: '00000', data: { reference: `${order.reference}-2` } });
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

  it('refuses an attempt out of order (a hand-made request: attempt 3 before attempt 2), naming the reference', async () => {
    const order = cart();
    const sn = terminal();
    await create(stack.url, order, 1, sn);
    await swipe(sn, 'fail');
    const third = await create(stack.url, order, 3, sn, { leaving: true });
    expect(third.body).toMatchObject({ code: '02001', data: { errors: [{ field: 'reference', rule: 'sequence' }] } });
    expect(await ordersOf(order)).toHaveLength(1);
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
    const paymentOf = async (reference: string) => {
      for (let tries = 0; tries < 250; tries += 1) {
        const found = stack.callbacks.find((event) => event.body.reference === reference && event.body.status === 'SUCCESS');
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no payment of ${reference} reached the shop`);
    };
    await swipe(second, 'success');
    expect((await paymentOf(`${order.reference}-2`)).checkout).toEqual({ reference: order.reference, attempt: 2, alsoPaid: [] });
    await swipe(first, 'success');
    expect((await paymentOf(order.reference)).checkout).toEqual({ reference: order.reference, attempt: 1, alsoPaid: [`${order.reference}-2`] });
  });

  it('never believes a checkout the callback address names for another reference', async () => {
    const { checkoutOfCallback } = await import('../../src/server/checkouts.js');
    expect(checkoutOfCallback('https://shop.example/callbacks?checkout=cart-1&attempt=2', 'cart-1-2')).toEqual({ reference: 'cart-1', attempt: 2 });
    expect(checkoutOfCallback('https://shop.example/callbacks?checkout=cart&attempt=2', 'cart-1-2')).toBeUndefined();
    expect(checkoutOfCallback('https://shop.example/callbacks?checkout=cart-1&attempt=x', 'cart-1')).toBeUndefined();
    expect(checkoutOfCallback('https://shop.example/callbacks', 'cart-1')).toBeUndefined();
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

  it('end with one order, for a first attempt and for a second after a leave', async () => {
    const order = cart();
    const sn = terminal();
    const first = await Promise.all(kits.map((kit) => create(kit.url, order, 1, sn)));
    expect(first.map((answer) => answer.body.code).sort()).toEqual(['00000', '02004']);
    const second = await Promise.all(kits.map((kit) => create(kit.url, order, 2, sn, { leaving: true })));
    expect(second.map((answer) => answer.body.code).sort()).toEqual(['00000', '02004']);
    expect(await ordersOf(order)).toHaveLength(2);
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
    expect(await handler.openCheckout(order)).toMatchObject({ state: 'failed', attempt: 2, started: false });
    await create(stack.url, order, 2, sn);
    await swipe(sn, 'success');
    const paid = await handler.openCheckout(order);
    expect(paid).toMatchObject({ state: 'paid', attempt: 2, started: true, order: { reference: `${order.reference}-2`, status: 'SUCCESS' } });
  });
});
