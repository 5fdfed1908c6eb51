/**
 * The demo shop's orders, as its server decides them: the cart's amount and product, a reference per order,
 * how long each order may wait for its payment, and a checkout token for each. Shared by the dev server's
 * plugin (which issues the tokens) and the page.
 */
import { LIMITS } from '../src/core/rules.js';
import type { FaultKind } from '../src/sandbox/faults/service-faults.js';
import type { CheckoutOrder } from '../src/server/tokens/tokens.js';

/** `POST` `{reference?, expireAt?}`: a checkout token for that order of this visitor, or for a new one. */
export const DEMO_ORDERS_PATH = '/demo/orders';
/** The cookie that remembers this visitor's order, as a shop's session would. */
export const DEMO_ORDER_COOKIE = 'svc-demo-order';

export interface DemoOrder {
  reference: string;
  checkoutToken: string;
  /** Minutes an order of this checkout waits for its payment, as the token says. */
  expireAt: number;
}

/** `POST` `{}`: a payment link for a new cart (docs/pay-links.md), made by the kit: `{url, qr}`. */
export const DEMO_LINKS_PATH = '/demo/links';

export interface DemoLink {
  url: string;
  /** The link's QR code, drawn by the kit. */
  qr: string;
  reference: string;
}

/** The name the shop goes by: in its token, and as the sandbox merchant's name (the 3-D Secure page shows it). */
export const DEMO_MERCHANT_NAME = 'Nile Coffee Roasters';

/** Everything but the reference and the expiry: the shop's server decides them, never the page. */
export const DEMO_CART: Omit<CheckoutOrder, 'reference' | 'expireAt'> = {
  amount: { total: 12_500, currency: 'EGP' },
  country: 'EG',
  product: { name: 'Coffee order', description: 'Yirgacheffe beans 1 kg, ceramic dripper' },
  merchantName: DEMO_MERCHANT_NAME,
};

export const DEMO_DEFAULT_EXPIRE_AT: number = LIMITS.defaultExpireMinutes;

export function newDemoReference(): string {
  return `NCR-${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
}

/** What a `POST /demo/orders` asks for, or the message that says what is wrong with it. */
export function readOrderRequest(body: unknown): { reference?: string; expireAt?: number } | { error: string } {
  const request = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const { reference, expireAt } = request;
  if (expireAt !== undefined && (!Number.isInteger(expireAt) || (expireAt as number) < 1 || (expireAt as number) > LIMITS.maxExpireMinutes)) {
    return { error: `expireAt must be a whole number of minutes from 1 to ${LIMITS.maxExpireMinutes}` };
  }
  return {
    ...(typeof reference === 'string' ? { reference } : {}),
    ...(expireAt !== undefined ? { expireAt: expireAt as number } : {}),
  };
}

/**
 * `GET` the faults the demo's server holds for the next create, `POST` `{kind, delayMs?}` one more, `DELETE`
 * them all (demo/next-create-faults.ts). A fault is part of the shop's order flow the tester breaks on purpose.
 */
export const DEMO_FAULTS_PATH = '/demo/faults';

export interface HeldFault {
  kind: FaultKind;
  delayMs?: number;
}
