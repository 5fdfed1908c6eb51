/**
 * Checkout tokens for tests, as a shop's server issues them: from the order a create body names (its reference,
 * amount, country, product and expiry), so that a test can send the body it always sent and the kit still takes
 * every decided field from the token.
 */
import { issueCheckoutToken, type CheckoutOrder } from '../../src/server/index.js';
import { CHECKOUT_TOKEN_HEADER, isPlainObject } from '../../src/core/index.js';

export interface Credentials {
  merchantId: string;
  privateKey: string;
}

/** The order a create body describes; fields the body lacks get the values every fixture uses. */
export function orderOf(body: unknown, extra: Partial<CheckoutOrder> = {}): CheckoutOrder {
  const value = isPlainObject(body) ? body : {};
  const amount = isPlainObject(value['amount']) ? value['amount'] : {};
  const product = isPlainObject(value['product']) ? value['product'] : {};
  const expireAt = Number(value['expireAt']);
  return {
    reference: typeof value['reference'] === 'string' ? value['reference'] : 'order-1001',
    amount: { total: Number(amount['total'] ?? 12_500), currency: String(amount['currency'] ?? 'EGP') },
    country: typeof value['country'] === 'string' ? value['country'] : 'EG',
    product: {
      name: typeof product['name'] === 'string' ? product['name'] : 'Espresso beans',
      description: typeof product['description'] === 'string' ? product['description'] : 'Single-origin beans',
    },
    ...(Number.isInteger(expireAt) && expireAt > 0 ? { expireAt } : {}),
    ...extra,
  };
}

export async function tokenFor(credentials: Credentials, body: unknown, extra: Partial<CheckoutOrder> = {}): Promise<string> {
  return issueCheckoutToken(credentials, orderOf(body, extra));
}

export async function tokenHeader(credentials: Credentials, body: unknown, extra: Partial<CheckoutOrder> = {}): Promise<Record<string, string>> {
  return { [CHECKOUT_TOKEN_HEADER]: await tokenFor(credentials, body, extra) };
}

