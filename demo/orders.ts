/**
 * The demo shop's orders, as its server decides them: the cart's amount and product, a reference per order,
 * and a checkout token for each. Shared by the dev server's plugin (which issues the tokens) and the page.
 */
import type { CheckoutOrder } from '../src/server/tokens.js';

/** `POST` `{reference?}`: a checkout token for that order of this visitor, or for a new one. */
export const DEMO_ORDERS_PATH = '/demo/orders';
/** The cookie that remembers this visitor's order, as a shop's session would. */
export const DEMO_ORDER_COOKIE = 'svc-demo-order';

export interface DemoOrder {
  reference: string;
  checkoutToken: string;
}

/** Everything but the reference: the shop's server decides it, never the page. */
export const DEMO_CART: Omit<CheckoutOrder, 'reference'> = {
  amount: { total: 12_500, currency: 'EGP' },
  country: 'EG',
  product: { name: 'Coffee order', description: 'Yirgacheffe beans 1 kg, ceramic dripper' },
  merchantName: 'Nile Coffee Roasters',
  expireAt: 30,
};

export function newDemoReference(): string {
  return `NCR-${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
}
