/**
 * The element's configuration: the SDK's PayParams, from the `payParams` property and the attributes that
 * mirror its fields (an attribute that is set wins over the same field of `payParams`).
 */
import {
  DEFAULT_ATTEMPTS,
  isPayMethod,
  parseCheckoutToken,
  PAY_METHODS,
  type CheckoutTokenClaims,
  type PayMethod,
  type PayParams,
  type UserInfo,
} from '../core/index.js';

export interface CheckoutConfig {
  endpoint: string | undefined;
  /** The checkout token the shop's server rendered into the page; its claims win over every attribute. */
  checkoutToken: string | undefined;
  /** How many attempts (references) the checkout may use. */
  attempts: number;
  /** When the checkout token stops being accepted (epoch ms). */
  tokenExpiresAt: number | undefined;
  merchantId: string | undefined;
  merchantName: string;
  /** The merchant's reference for the order; attempts after the first add `-2`, `-3`, … */
  reference: string | undefined;
  countryCode: string | undefined;
  currency: string | undefined;
  payAmount: number | undefined;
  productName: string | undefined;
  productDescription: string | undefined;
  callbackUrl: string | undefined;
  expireAt: number;
  /** The methods offered, in order. */
  methods: PayMethod[];
  userInfo: UserInfo;
  returnUrl: string | undefined;
}

/** The element's own attribute values, where set. */
export interface AttributeValues {
  endpoint?: string | undefined;
  checkoutToken?: string | undefined;
  merchantId?: string | undefined;
  merchantName?: string | undefined;
  reference?: string | undefined;
  countryCode?: string | undefined;
  currency?: string | undefined;
  payAmount?: number | undefined;
  productName?: string | undefined;
  productDescription?: string | undefined;
  callbackUrl?: string | undefined;
  expireAt?: number | undefined;
  payMethod?: string | undefined;
  methods?: string | undefined;
  returnUrl?: string | undefined;
}

/** Keys that must never reach the browser; the SDK's samples once carried one. */
const PRIVATE_KEY_FIELDS = ['privateKey', 'privatekey', 'private_key', 'secretKey'];

export function carriesPrivateKey(value: unknown): boolean {
  return typeof value === 'object' && value !== null && PRIVATE_KEY_FIELDS.some((field) => Object.hasOwn(value, field));
}

/** A copy without any private key field. */
export function withoutPrivateKey(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !PRIVATE_KEY_FIELDS.includes(key)));
}

/** The list in `methods` ("Pos, ReferenceCode" or space separated); unknown names are reported, not dropped silently. */
export function parseMethods(list: string | undefined): { methods: PayMethod[]; unknown: string[] } {
  if (list === undefined || list.trim() === '') return { methods: [...PAY_METHODS], unknown: [] };
  const names = list.split(/[\s,]+/).filter(Boolean);
  const methods = [...new Set(names.filter(isPayMethod))];
  return { methods, unknown: names.filter((name) => !isPayMethod(name)) };
}

/**
 * What a checkout token fixes, as the PayParams fields it replaces. The page may read the token (only the kit
 * can check it): what the payer sees is what the kit will charge.
 */
function paramsOfToken(claims: CheckoutTokenClaims): Partial<PayParams> & { methods?: PayMethod[] } {
  return {
    merchantId: claims.merchantId,
    ...(claims.merchantName !== undefined ? { merchantName: claims.merchantName } : {}),
    reference: claims.reference,
    countryCode: claims.country,
    currency: claims.amount.currency,
    payAmount: claims.amount.total,
    productName: claims.product.name,
    ...(claims.product.description !== undefined ? { productDescription: claims.product.description } : {}),
    ...(claims.expireAt !== undefined ? { expireAt: claims.expireAt } : {}),
    ...(claims.methods ? { methods: claims.methods } : {}),
  };
}

export function resolveConfig(
  set: AttributeValues,
  payParams: Partial<PayParams> | undefined,
  userInfo: UserInfo | undefined,
): { config: CheckoutConfig; problem?: string } {
  let attributes = set;
  let params = payParams ?? {};
  let tokenProblem: string | undefined;
  let claims: CheckoutTokenClaims | undefined;
  if (set.checkoutToken) {
    const parsed = parseCheckoutToken(set.checkoutToken);
    if (parsed.ok) {
      claims = parsed.token.claims;
      // The token decides the order: attributes may still choose among its methods, nothing else of it.
      const { methods, ...fixed } = paramsOfToken(claims);
      params = { ...params, ...fixed, callbackUrl: undefined };
      attributes = { ...set, ...Object.fromEntries(Object.keys(fixed).map((key) => [key, undefined])), callbackUrl: undefined };
      if (methods) {
        const chosen = parseMethods(set.methods).methods.filter((method) => methods.includes(method));
        attributes = { ...attributes, methods: (chosen.length > 0 ? chosen : methods).join(' ') };
      }
    } else tokenProblem = 'checkout-token';
  }
  // An attribute set to "" counts as not set, as a framework binding an empty value would leave it.
  const given = <T>(value: T | undefined): value is T => value !== undefined && value !== null && value !== '';
  const pick = <T>(attribute: T | undefined, param: T | undefined): T | undefined =>
    given(attribute) ? attribute : given(param) ? param : undefined;
  const { methods: listed, unknown } = parseMethods(attributes.methods);
  const preferred = pick(attributes.payMethod, params.payMethod);
  let problem: string | undefined;
  if (tokenProblem) problem = tokenProblem;
  if (unknown.length > 0) problem ??= 'methods';
  let methods = listed;
  if (preferred !== undefined) {
    if (!isPayMethod(preferred)) problem = 'pay-method';
    else methods = listed.includes(preferred) ? [preferred] : [];
  }
  if (methods.length === 0) problem ??= 'methods';
  const config: CheckoutConfig = {
    endpoint: pick(attributes.endpoint, undefined),
    checkoutToken: claims ? set.checkoutToken?.trim() : undefined,
    attempts: claims?.attempts ?? DEFAULT_ATTEMPTS,
    tokenExpiresAt: claims ? claims.expiresAt * 1000 : undefined,
    merchantId: pick(attributes.merchantId, params.merchantId),
    merchantName: pick(attributes.merchantName, params.merchantName) ?? '',
    reference: pick(attributes.reference, params.reference),
    countryCode: pick(attributes.countryCode, params.countryCode),
    currency: pick(attributes.currency, params.currency),
    payAmount: pick(attributes.payAmount, params.payAmount),
    productName: pick(attributes.productName, params.productName),
    productDescription: pick(attributes.productDescription, params.productDescription),
    callbackUrl: pick(attributes.callbackUrl, params.callbackUrl),
    expireAt: pick(attributes.expireAt, params.expireAt) ?? 30,
    methods: methods.length > 0 ? methods : [...PAY_METHODS],
    userInfo: userInfo ?? params.userInfo ?? {},
    returnUrl: pick(attributes.returnUrl, undefined),
  };
  if (!config.endpoint) problem ??= 'endpoint';
  if (!config.merchantId) problem ??= 'merchant-id';
  // The service lets a Pos or BankAccount create go without a country, but not the status, OTP, PIN and
  // resend calls that follow it: without one the payment could be made and never seen.
  if (!config.countryCode) problem ??= 'country-code';
  return problem ? { config, problem } : { config };
}
