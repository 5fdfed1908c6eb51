/**
 * The order as the browser proposes it, for shops whose orders come from their `authorize` hook (or, in development,
 * from the browser): the body less what the browser never decides (its callback address, the merchant's name, the
 * payer's address), and the check of a bank account order's 3-D Secure return address. The create (create.ts) and
 * the ticket (tickets.ts) read it alike.
 */
import { LEAVING_FIELD, type CreatePaymentRequest, type Violation } from '../../core/index.js';
import { logValue, type KitRequest } from '../http/http.js';
import type { PaymentContext } from './context.js';

export interface BrowserOrders {
  /** The browser's order: never its callback URL, merchant name or address; the kit's instead. */
  orderOf(body: Record<string, unknown>, request: KitRequest): Record<string, unknown>;
  /**
   * A 3-D Secure return address must be a page of the shop: the token's, or on an origin the shop configured.
   * Never one a request's headers name (`Origin`, `Host`): whoever sends a request by hand writes those.
   */
  returnUrlViolation(order: Pick<CreatePaymentRequest, 'payMethod'> & { returnUrl?: string }, fixedByToken: boolean): Violation | undefined;
}

export function browserOrders(context: PaymentContext, callbackUrlFor: (request: KitRequest) => string | undefined): BrowserOrders {
  const { config } = context;
  const returnOrigins = new Set(config.returnUrlOrigins);
  return {
    orderOf(body, request) {
      const { callbackUrl: _callbackUrl, merchantName: _merchantName, userClientIP: _address, [LEAVING_FIELD]: _leaving, ...rest } = body;
      return {
        ...rest,
        callbackUrl: callbackUrlFor(request),
        ...(body['payMethod'] === 'ReferenceCode' ? { merchantName: config.merchantName } : {}),
      };
    },
    returnUrlViolation(order, fixedByToken) {
      if (order.payMethod !== 'BankAccount' || fixedByToken || order.returnUrl === undefined) return undefined;
      const origin = new URL(order.returnUrl).origin;
      if (returnOrigins.has(origin)) return undefined;
      config.logger.warn(`svc-checkout: a bank account create was refused: its returnUrl's origin ${logValue(origin)} is not one of returnUrlOrigins`);
      return { field: 'returnUrl', rule: 'origin', message: "returnUrl must be a page of the shop's own origin" };
    },
  };
}
