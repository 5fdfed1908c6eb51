/**
 * Every path this package speaks, in one place: the service's API (DESIGN.md §4), the merchant endpoint the
 * element calls (DESIGN.md §3), and the sandbox's own pages and control API.
 */

/** Paths of the payment service, the same on every environment. */
export const SERVICE_PATHS = {
  create: '/api/v1/international/payment/create',
  /** The real service's documented OTP action; the specification sends the same body to `create`. */
  inputOtp: '/api/v1/payment/action/input-otp',
  inputPin: '/api/v1/payment/action/input-pin',
  resendOtp: '/api/v1/payment/action/resend-otp',
  status: '/api/v1/international/cashier/status',
  refundCreate: '/api/v1/international/payment/refund/create',
  refundQuery: '/api/v1/international/payment/refund/query',
} as const;

export type ServiceOperation = keyof typeof SERVICE_PATHS;

/**
 * Base addresses of the service. The specification names them `{base_url_staging}` and
 * `{base_url_production}` without publishing them; the service issues them to a merchant at onboarding.
 * `sandbox` is therefore the local `svc-sandbox` at its default address, and a live address is passed as
 * `{ baseUrl }`.
 */
export const SERVICE_ENVIRONMENTS = {
  sandbox: 'http://127.0.0.1:4010',
  production: undefined,
} as const satisfies Record<string, string | undefined>;

export const SANDBOX_DEFAULT_PORT = 4010;

/** Paths under the merchant's `endpoint` prefix, served by the merchant kit's handler. */
export const MERCHANT_PATHS = {
  create: '/payments',
  otp: '/payments/otp',
  pin: '/payments/pin',
  resendOtp: '/payments/otp/resend',
  status: '/payments/status',
  callbacks: '/callbacks',
} as const;

export type MerchantOperation = keyof typeof MERCHANT_PATHS;

/**
 * The merchant kit's response header on a create that left a pending order: seconds until the order expires,
 * from the `expireAt` it sent. The element counts down to it (the service's own answer carries no expiry).
 */
export const EXPIRES_IN_HEADER = 'Svc-Expires-In';

/**
 * The merchant kit's response header on a create that returned an order number, and the header the element
 * sends it back in on that order's OTP, PIN and resend calls: an HMAC of the order number under the merchant's
 * key, so that only the page that created an order can act on it.
 */
export const ORDER_TOKEN_HEADER = 'Svc-Order-Token';

/** The sandbox's control API and pages; `{name}` marks a path parameter. */
export const SANDBOX_PATHS = {
  orders: '/sandbox/v1/orders',
  completeOrder: '/sandbox/v1/orders/{orderNo}/complete',
  order: '/sandbox/v1/orders/{orderNo}',
  payReferenceCode: '/sandbox/v1/reference-codes/{code}/pay',
  swipe: '/sandbox/v1/pos/{sn}/swipe',
  advanceClock: '/sandbox/v1/clock/advance',
  clock: '/sandbox/v1/clock',
  callbacks: '/sandbox/v1/callbacks',
  notifications: '/sandbox/v1/notifications',
  faults: '/sandbox/v1/faults',
  reset: '/sandbox/v1/reset',
  threeDsPage: '/sandbox/3ds/{orderNo}',
  threeDsDecision: '/sandbox/3ds/{orderNo}/{decision}',
} as const;

export type SandboxOperation = keyof typeof SANDBOX_PATHS;

/** Fills `{name}` parameters, encoding each value. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`fillPath: no value for {${name}} in ${template}`);
    return encodeURIComponent(value);
  });
}

/** Matches a concrete path against a template; returns the decoded parameters, or undefined. */
export function matchPath(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const match = new RegExp(`^${pattern}$`).exec(path);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  try {
    names.forEach((name, index) => {
      params[name] = decodeURIComponent(match[index + 1] ?? '');
    });
  } catch {
    return undefined; // a malformed %-escape matches nothing
  }
  return params;
}
