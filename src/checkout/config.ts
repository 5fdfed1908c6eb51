/**
 * A checkout's configuration: the checkout token, else the SDK's PayParams, from the `payParams` property and
 * the attributes that mirror its fields (an attribute that is set wins over the same field of `payParams`).
 * `ATTRIBUTES` is the one table of the element's attributes; the element declares its properties from it.
 */
// Straight from the modules, not the core index: the element's first frame resolves its configuration with this
// file, and must not carry the rules of a token's claims (the kit checks those: `shownClaims` in first-frame.ts).
import { isPayMethod, PAY_METHODS, type PayMethod } from '../core/pay-methods.js';
import type { NotifyLanguage } from '../core/status.js';
import { DEFAULT_ATTEMPTS } from '../core/token-wire.js';
import type { CheckoutTokenClaims } from '../core/tokens.js';
import type { PayParams, UserInfo } from '../core/types.js';

/**
 * Every attribute of `<svc-checkout>`: its property (the attribute is its kebab case, `attributeOf`), type, and whose
 * it is: `order` (what is paid, fixed by a checkout token), `session` (how the payment runs) or `view` (the element's
 * own: how it looks, what it reports). config-sources.ts says which
 * fields of the order each attribute of the order fills (resolveConfig).
 */
export const ATTRIBUTES = [
  { property: 'endpoint', type: 'string', role: 'session' },
  { property: 'checkoutToken', type: 'string', role: 'order' },
  { property: 'merchantId', type: 'string', role: 'order' },
  { property: 'merchantName', type: 'string', role: 'order' },
  { property: 'reference', type: 'string', role: 'order' },
  { property: 'countryCode', type: 'string', role: 'order' },
  { property: 'currency', type: 'string', role: 'order' },
  { property: 'payAmount', type: 'number', role: 'order' },
  { property: 'productName', type: 'string', role: 'order' },
  { property: 'productDescription', type: 'string', role: 'order' },
  { property: 'callbackUrl', type: 'string', role: 'order' },
  { property: 'expireAt', type: 'number', role: 'order' },
  { property: 'payMethod', type: 'string', role: 'order' },
  { property: 'methods', type: 'string', role: 'order' },
  { property: 'returnUrl', type: 'string', role: 'session' },
  { property: 'statusOnly', type: 'boolean', role: 'session' },
  { property: 'terminal', type: 'string', role: 'session' },
  { property: 'redirectMode', type: 'string', role: 'session' },
  { property: 'pollInterval', type: 'number', role: 'session' },
  { property: 'credentials', type: 'string', role: 'session' },
  { property: 'sandbox', type: 'boolean', role: 'view' },
  { property: 'locale', type: 'string', role: 'view' },
  { property: 'theme', type: 'string', role: 'view' },
  { property: 'sendTimings', type: 'boolean', role: 'view' },
  { property: 'isolated', type: 'boolean', role: 'session' },
] as const satisfies readonly {
  property: string;
  type: 'string' | 'number' | 'boolean';
  role: 'order' | 'session' | 'view';
}[];

export interface CheckoutConfig {
  endpoint: string | undefined;
  /** The checkout token the shop's server rendered into the page; its claims win over every attribute. */
  checkoutToken: string | undefined;
  /** How many attempts (references) the checkout may use. */
  attempts: number;
  /** The attempt the page starts at, and whether its order exists (the kit's `openCheckout` says): from the token. */
  startAttempt: number;
  started: boolean;
  /** The reference of that order when it is not the attempt's own (an order of the kit's earlier scheme). */
  startReference?: string | undefined;
  /** When the checkout token stops being accepted (epoch ms). */
  tokenExpiresAt: number | undefined;
  merchantId: string | undefined;
  merchantName: string;
  /** The merchant's reference for the order; attempts after the first add `--2`, `--3`, … */
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

type AttributeRow = (typeof ATTRIBUTES)[number];

/** `checkoutToken` → `checkout-token`, as a type. */
type Kebab<S extends string> = S extends `${infer Head}${infer Tail}` ? `${Head extends Lowercase<Head> ? Head : `-${Lowercase<Head>}`}${Kebab<Tail>}` : '';

/** A row's attribute: its property in kebab case (`checkoutToken` → `checkout-token`). */
export const attributeOf = <P extends AttributeRow['property']>(property: P): Kebab<P> =>
  property.replace(/[A-Z]/g, (upper) => `-${upper.toLowerCase()}`) as Kebab<P>;
type ValueOf<T extends AttributeRow['type']> = { string: string; number: number; boolean: boolean }[T];

/** The element's own attribute values, where set: those of the order and of the session, typed from the table. */
export type AttributeValues = { [Row in AttributeRow as Row['role'] extends 'view' ? never : Row['property']]?: ValueOf<Row['type']> | undefined };

/** What a checkout is configured with: the attributes, and what a host adds. */
export interface CheckoutSettings extends AttributeValues {
  payParams?: Partial<PayParams> | undefined;
  userInfo?: UserInfo | undefined;
  /** `new-window` opens 3-D Secure in a window cut off from this page. Default `same-window`. */
  redirectMode?: 'same-window' | 'new-window' | undefined;
  /** Base of the polling schedule, ms. Default 2500. */
  pollInterval?: number | undefined;
  /** `false`: follow the order by polling only, never through the kit's status stream. Default true. */
  liveStatus?: boolean | undefined;
  credentials?: RequestCredentials | undefined;
  /** Show the status of the checkout token's order only, never a form (a thank-you page). */
  statusOnly?: boolean | undefined;
  /** The language reference code messages default to. */
  language?: NotifyLanguage | undefined;
  /** A setting the host refused (e.g. a private key): shown as a configuration error naming it. */
  refused?: string | undefined;
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

/**
 * A checkout's configuration from its settings. `readClaims` reads a checkout token's claims (`shownClaims` for the
 * first frame and the session alike: their shape, not their rules, which the kit checked when it signed the token).
 */
export function resolveConfig(
  set: AttributeValues,
  payParams: Partial<PayParams> | undefined,
  userInfo: UserInfo | undefined,
  readClaims: (token: string) => CheckoutTokenClaims | undefined,
): { config: CheckoutConfig; problem?: string } {
  let attributes = set;
  let params = payParams ?? {};
  let tokenProblem: string | undefined;
  let claims: CheckoutTokenClaims | undefined;
  if (set.checkoutToken) {
    claims = readClaims(set.checkoutToken);
    if (claims) {
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
  // Each attribute of the order over the same field of payParams: the table's `order` rows, not a second list.
  const order = Object.fromEntries(
    ATTRIBUTES.flatMap(({ property, role }) => (role === 'order' ? [[property, pick(attributes[property], params[property as keyof PayParams])]] : [])),
  ) as Pick<CheckoutConfig, 'merchantId' | 'reference' | 'countryCode' | 'currency' | 'payAmount' | 'productName' | 'productDescription' | 'callbackUrl'> &
    Partial<Pick<CheckoutConfig, 'merchantName' | 'expireAt'>>;
  const config: CheckoutConfig = {
    ...order,
    endpoint: pick(attributes.endpoint, undefined),
    checkoutToken: claims ? set.checkoutToken?.trim() : undefined,
    attempts: claims?.attempts ?? DEFAULT_ATTEMPTS,
    startAttempt: claims?.attempt ?? 1,
    started: Boolean(claims?.started),
    startReference: typeof claims?.started === 'string' ? claims.started : undefined,
    tokenExpiresAt: claims ? claims.expiresAt * 1000 : undefined,
    merchantName: order.merchantName ?? '',
    expireAt: order.expireAt ?? 30,
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
