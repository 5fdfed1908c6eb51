/**
 * The paths of the contract: the service's API (DESIGN.md §4) and the merchant endpoint the element calls
 * (DESIGN.md §3). The sandbox's own pages and control API are the sandbox's (src/sandbox/paths.ts).
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
  /**
   * `GET`: the order's status as Server-Sent Events (src/core/stream.ts), pushed when the kit verifies a
   * callback for it. Proved like `status`: the order token, or a checkout token and the reference it covers.
   */
  events: '/payments/events',
  callbacks: '/callbacks',
  /**
   * `GET`: where the bank returns a payer who went through 3-D Secure in a new window. A small page that tells
   * the shop's tab (on the same origin) and closes itself.
   */
  returnPage: '/return',
  /**
   * `GET` (or `HEAD`): the readiness answer for load balancers (docs/observability.md): 200 while this process can take
   * payments (the service reachable from it, its Redis answering), 503 otherwise. Unauthenticated, and it says nothing
   * but those words.
   */
  health: '/health',
  /**
   * `POST`: the element's timings, sent as beacons when the page asks for them (`send-timings`); the kit publishes
   * them on `svc-checkout:timing` (src/core/timings.ts, docs/observability.md).
   */
  timings: '/timings',
  /**
   * `POST`, from the shop's page (same origin, with its cookies): a ticket for the isolated frame's bank account create
   * when orders come from the shop's `authorize` hook (or, in development, the browser). The kit runs `authorize` here,
   * keeps the order it decided, and answers a short-lived, single-use ticket the frame's create then carries
   * (`TICKET_HEADER`): the frame sends no cookie, and needs none.
   */
  ticket: '/payments/ticket',
} as const;

export type MerchantOperation = keyof typeof MERCHANT_PATHS;

/**
 * Pages the kit serves under its base path that neither the element's first frame nor the isolated frame ever calls:
 * apart from `MERCHANT_PATHS`, which both bundles carry whole, so that they cost those bundles nothing (a lazy chunk of
 * the element imports the one it calls). The route table
 * (src/server/routes/table.ts) serves them beside the merchant paths.
 */
export const KIT_PAGE_PATHS = {
  /**
   * `GET` (or `HEAD`): the pay page of a payment link (docs/pay-links.md): the merchant's name, the order, the
   * element, the receipt once paid. `{link}` is the sealed link the kit made (`createPaymentLink`).
   */
  pay: '/pay/{link}',
  /** `GET` (or `HEAD`): the pay page's address as a QR code (SVG), for the payer's phone to open it. */
  payQr: '/pay/{link}/qr.svg',
  /**
   * "Pay on your phone" from the element on the shop's own page (docs/pay-links.md), proved by the element's checkout
   * token (`Svc-Checkout-Token`). `POST`: a payment link for that checkout (the same cart, amount and currency, good no
   * longer than the token) and its QR code's SVG. `GET`: the light check of a page showing the form: the last attempt
   * of the checkout the kit forwarded (0: none), from the kit's record, no query to the service. Only the element's
   * "pay on your phone" chunk calls it, so it costs the first frame nothing.
   */
  handoff: '/payments/handoff',
} as const;

export type KitPage = keyof typeof KIT_PAGE_PATHS;

/** Every route of the kit: the element's calls, the service's callbacks, and the kit's own pages. */
export type KitOperation = MerchantOperation | KitPage;

/**
 * The isolated frame's page (docs/isolated-fields.md): served by the kit under the endpoint prefix, beside the
 * element's files. The payer types the bank account details, the one-time code and the PIN in it, where the
 * shop's page cannot read them.
 */
export const FRAME_PAGE = 'svc-checkout-frame.html';

/**
 * The element's calls the isolated frame sends itself, from its opaque origin (`Origin: null`): the kit answers
 * their CORS, and no other route's.
 */
export const ISOLATED_CALLS = ['create', 'otp', 'pin'] as const satisfies readonly MerchantOperation[];

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

/**
 * The header every call of the element carries its checkout token in: the order the merchant's server
 * decided (src/core/tokens.ts). Without it the kit creates nothing and reads nothing.
 */
export const CHECKOUT_TOKEN_HEADER = 'Svc-Checkout-Token';

/** The header the isolated frame's create carries a ticket in (`MERCHANT_PATHS.ticket`), where it has no checkout token. */
export const TICKET_HEADER = 'Svc-Ticket';

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
