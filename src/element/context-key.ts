/**
 * The key of `checkoutContext` (context.ts): a registered symbol, the same in every copy of the package on a page, so
 * that a shop's element built with its own copy finds the element's context. Apart, because the first frame holds on
 * to the requests made before the context is provided, and must not carry more than the key.
 */
export const CHECKOUT_CONTEXT_KEY: unique symbol = Symbol.for('svc-checkout.checkout') as never;
