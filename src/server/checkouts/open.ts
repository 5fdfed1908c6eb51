/**
 * A cart's checkout as the shop's page opens it (`handler.openCheckout`, docs/one-payment.md): where it stands, and
 * the checkout token the page renders, at the attempt the page starts at; and the kit's own tokens
 * (`handler.checkoutToken`), which carry its merchant name and, against the sandbox, test mode.
 */
import type { KitConfig } from '../config/handler.js';
import { ServiceConfigError } from '../config/errors.js';
import type { StatusRoutes } from '../payments/status.js';
import { issueCheckoutToken, type CheckoutOrder, type IssueCheckoutTokenOptions } from '../tokens/tokens.js';
import type { CheckoutProgress } from './walk.js';

/** How `openCheckout` counts the page that opens it, and the token it issues. */
export interface OpenCheckoutOptions extends IssueCheckoutTokenOptions {
  /** The page's request: a Web `Request`, or Node's `IncomingMessage` (Express's `req`). Its client is counted. */
  request?: unknown;
  /** Or a key of the client of your own (an address, a session id), counted in its place. */
  client?: string;
}

/** A cart's checkout as the page renders it. */
export interface OpenedCheckout extends CheckoutProgress {
  /** The checkout token for `<svc-checkout checkout-token="…">`. */
  token: string;
}

export interface KitCheckouts {
  openCheckout(order: CheckoutOrder, options?: OpenCheckoutOptions): Promise<OpenedCheckout>;
  checkoutToken(order: CheckoutOrder, options?: IssueCheckoutTokenOptions): Promise<string>;
}

export function kitCheckouts(config: KitConfig, statuses: Pick<StatusRoutes, 'progress'>): KitCheckouts {
  /** What the kit's own tokens add to an order: its merchant name unless the order names one, and test mode against the sandbox. */
  const withKitClaims = (order: CheckoutOrder): CheckoutOrder => ({
    ...(config.merchantName !== undefined ? { merchantName: config.merchantName } : {}),
    ...(config.serviceIsLocal ? { sandbox: true } : {}),
    ...order,
  });

  return {
    async openCheckout(order, given = {}) {
      if (config.orderSource !== 'checkout-token') throw new ServiceConfigError("openCheckout issues checkout tokens: it needs orders: 'checkout-token' (the default)");
      const { request, client, ...issue } = given;
      // Checked before the service is asked: a reference or amount the token would refuse is said at once.
      await issueCheckoutToken(config.credentials, withKitClaims(order), { now: config.now(), ...issue });
      const { startedReference, ...progress } = await statuses.progress(order, { request, client });
      const claims = { ...order, attempt: progress.attempt, ...(progress.started ? { started: startedReference ?? true } : {}) };
      const token = await issueCheckoutToken(config.credentials, withKitClaims(claims), { now: config.now(), ...issue });
      return { ...progress, token };
    },
    checkoutToken: (order, options) => issueCheckoutToken(config.credentials, withKitClaims(order), options),
  };
}
