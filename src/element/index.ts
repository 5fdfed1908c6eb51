/**
 * `svc-checkout`: registers `<svc-checkout>` and exports its class, events, localisation and the contract
 * types a page needs. It holds no key and talks only to the merchant's endpoint.
 */
import './define.js';

export { SvcCheckout } from './svc-checkout.js';
export { TAG_NAME } from './define.js';
export * from './events/index.js';
export { checkoutContext, type CheckoutContextValue, type ContextOrder } from './context.js';
export { registerTranslation } from './i18n/registry.js';
export type { Translation, PartialTranslation } from './i18n/translation.js';
export type {
  PayParams,
  UserInfo,
  WebPayResult,
  Envelope,
  CreatePaymentData,
  CashierStatusData,
  PayMethod,
  PaymentStatus,
  NextActionType,
} from '../core/index.js';
export { PayResultStatus } from '../core/index.js';
