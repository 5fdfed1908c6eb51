/**
 * "Pay on your phone" from the shop's page (`<basePath>/payments/handoff`, docs/pay-links.md), against the real sandbox:
 * proved by the element's checkout token only; its link is the token's checkout (the same cart, amount, currency) and
 * lives no longer than the token; its address is the kit's own public origin whatever the request says; the light
 * check reads the kit's record (no query to the service) and counts against the client's status limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_HEADER, KIT_PAGE_PATHS, MERCHANT_PATHS } from '../../src/core/index.js';
import { issueCheckoutToken, readPaymentLink, type CheckoutOrder } from '../../src/server/index.js';
import { startStack } from '../../src/sandbox/index.js';
import { newCart } from '../support/carts.js';

type Stack = Awaited<ReturnType<typeof startStack>>;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ basePath: '/checkout', handler: { limits: { statusPerClient: { limit: 8, windowSeconds: 86_400 } }, logger: { warn() {}, error() {} } } });
});
afterAll(() => stack.close());

const cart = (extra: Partial<CheckoutOrder> = {}) => newCart<CheckoutOrder>('handoff', extra);

const handoff = (token: string | undefined, method: string, query = '') =>
  fetch(`${stack.url}${KIT_PAGE_PATHS.handoff}${query}`, { method, headers: token === undefined ? {} : { [CHECKOUT_TOKEN_HEADER]: token } });

describe('pay on your phone: the handoff route', () => {
  it("answers a link of the token's own checkout, no longer-lived than the token, at the kit's own origin, and its QR code", async () => {
    const order = cart({ methods: ['ReferenceCode'] });
    const nowMs = stack.sandbox.clock.now();
    const token = await issueCheckoutToken(stack.merchant, order, { now: nowMs, expiresInSeconds: 3_600 });
    // A page behind a proxy prefix on the kit's origin is taken; another origin is not.
    const response = await handoff(token, 'POST', `?lang=ar&at=${encodeURIComponent('https://evil.example/checkout')}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const made = (await response.json()) as { url: string; expiresAt: number; qr: string };
    expect(new URL(made.url).origin).toBe(new URL(stack.url).origin);
    expect(made.url).toMatch(/\/checkout\/pay\/pl1\.[\w-]+$/);
    expect(made.qr).toMatch(/^<svg [^>]*aria-label="رمز QR/);
    const read = await readPaymentLink(made.url.split('/pay/')[1], stack.merchant, nowMs);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.claims.order).toMatchObject({ reference: order.reference, amount: order.amount, country: 'EG', methods: ['ReferenceCode'] });
    expect(read.claims.expiresAt).toBeLessThanOrEqual(Math.floor(nowMs / 1000) + 3_600);
    expect(read.claims.order).not.toHaveProperty('attempt');
    expect(read.claims.order).not.toHaveProperty('started');

    const prefixed = await handoff(token, 'POST', `?at=${encodeURIComponent(`${new URL(stack.url).origin}/shop-prefix/checkout`)}`);
    expect(((await prefixed.json()) as { url: string }).url).toMatch(new RegExp(`^${new URL(stack.url).origin}/shop-prefix/checkout/pay/pl1\\.`));
  });

  it('refuses a missing, forged or foreign token, naming the header, and a token about to expire', async () => {
    for (const token of [undefined, 'ct1.nope.nope', await issueCheckoutToken({ merchantId: stack.merchant.merchantId, privateKey: 'another-key' }, cart())]) {
      const response = await handoff(token, 'POST');
      expect(response.status).toBe(401);
      expect(await response.text()).toContain(CHECKOUT_TOKEN_HEADER);
    }
    const short = await issueCheckoutToken(stack.merchant, cart(), { now: stack.sandbox.clock.now(), expiresInSeconds: 30 });
    expect((await handoff(short, 'POST')).status).toBe(410);
    expect((await handoff(short, 'PUT')).status).toBe(405);
  });

  it('names no attempt made for another amount of the cart: a page at the new amount keeps its form (and pays at the next attempt)', async () => {
    const before = cart();
    const token = await issueCheckoutToken(stack.merchant, before);
    const created = await fetch(`${stack.url}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
      body: JSON.stringify({ reference: before.reference, payMethod: 'Pos', sn: 'N1' }),
    });
    expect(((await created.json()) as { code: string }).code).toBe('00000');
    // The shop changed the cart: a page of the same cart at another amount.
    const changed = await issueCheckoutToken(stack.merchant, { ...before, amount: { total: 9_900, currency: 'EGP' } });
    expect(await (await handoff(changed, 'GET')).json()).toEqual({ attempt: 0 });
    expect(await (await handoff(token, 'GET')).json()).toEqual({ attempt: 1 });
  });

  it("tells a page the last attempt its checkout's orders reached, from the kit's record, and counts each check against the client's status limit", async () => {
    const order = cart();
    const token = await issueCheckoutToken(stack.merchant, order);
    expect(await (await handoff(token, 'GET')).json()).toEqual({ attempt: 0 });
    // Another device pays the same checkout.
    const created = await fetch(`${stack.url}${MERCHANT_PATHS.create}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
      body: JSON.stringify({ reference: order.reference, payMethod: 'Pos', sn: 'N1' }),
    });
    expect(((await created.json()) as { code: string }).code).toBe('00000');
    expect(await (await handoff(token, 'GET')).json()).toEqual({ attempt: 1 });
    let refused: Response | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const answer = await handoff(token, 'GET');
      if (answer.status === 429) refused = answer;
    }
    expect(refused, 'the light checks stop at the per-client status limit').toBeDefined();
    expect(((await refused!.json()) as { limit: string }).limit).toBe('statusPerClient');
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
