/**
 * The promises every shop we ship keeps about its carts (issue 47), asked of a running shop as an attacker would:
 * the cart cookie holds a secret the shop issued, never the order's reference (the number a payer reads on a receipt,
 * and anyone may learn); a victim's reference, or any value the shop did not issue, sent as the cookie starts a new
 * cart and opens nothing of the victim's; the cookie is HttpOnly, SameSite and, on https, Secure; no banner names the
 * framework.
 */
import { expect } from 'vitest';
import { parseCheckoutToken } from '../../src/core/index.js';

interface Visit {
  /** The cart the page's checkout token is for. */
  reference: string;
  token: string;
  /** The Set-Cookie of the cart, when the shop set one. */
  setCookie: string | undefined;
  headers: Headers;
}

async function visit(shopUrl: string, cookie?: string): Promise<Visit> {
  const answer = await fetch(`${shopUrl}/`, { headers: cookie ? { cookie } : {} });
  expect(answer.status).toBe(200);
  const page = await answer.text();
  const token = /checkout-token="([^"]+)"/.exec(page)?.[1];
  expect(token, page).toBeDefined();
  const parsed = parseCheckoutToken(token);
  if (!parsed.ok) throw new Error(`the shop's checkout token does not read: ${parsed.reason}`);
  const setCookie = answer.headers.getSetCookie().find((line) => line.startsWith('cart='));
  return { reference: parsed.token.claims.reference, token: token!, setCookie, headers: answer.headers };
}

/** The cookie as a browser sends it back: `cart=<value>`. */
const sentBack = (setCookie: string) => setCookie.split(';')[0]!;

export async function expectCartsHeld(shopUrl: string, { secure }: { secure: boolean }): Promise<void> {
  const first = await visit(shopUrl);
  expect(first.headers.get('x-powered-by'), 'a banner naming the framework').toBeNull();
  expect(first.setCookie, 'the cart cookie').toBeDefined();
  const attributes = first.setCookie!.split(';').slice(1).map((part) => part.trim().toLowerCase());
  expect(attributes).toContain('httponly');
  expect(attributes).toContain('samesite=lax');
  expect(attributes.includes('secure'), `Secure ${secure ? 'on https' : 'off on http'}: ${first.setCookie}`).toBe(secure);
  const cookie = sentBack(first.setCookie!);
  const secret = cookie.slice('cart='.length);
  // An unguessable secret (at least 128 bits), which says nothing of the order.
  expect(secret.length).toBeGreaterThanOrEqual(22);
  expect(secret).not.toContain(first.reference);

  // The cookie the shop issued: the same cart, and no new cookie.
  const again = await visit(shopUrl, cookie);
  expect(again.reference).toBe(first.reference);
  expect(again.setCookie).toBeUndefined();

  // The victim's order number, as the cookie: a new cart, nothing of the victim's.
  for (const forged of [first.reference, `${first.reference}--2`, 'A'.repeat(secret.length), `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`]) {
    const attack = await visit(shopUrl, `cart=${forged}`);
    expect(attack.reference, `cart=${forged}`).not.toBe(first.reference);
    expect(attack.token).not.toBe(first.token);
    expect(attack.setCookie, `a new cart for cart=${forged}`).toBeDefined();
    expect(sentBack(attack.setCookie!)).not.toBe(cookie);
  }
}
