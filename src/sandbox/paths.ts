/**
 * The sandbox's own paths: its control API and its 3-D Secure page; `{name}` marks a path parameter. Not part of
 * the service's contract, so not in src/core. Imports nothing of Node's: the control client runs in browsers.
 */
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
  state: '/sandbox/v1/state',
  events: '/sandbox/v1/events',
  scenarios: '/sandbox/v1/scenarios',
  refunds: '/sandbox/v1/refunds',
  deliveries: '/sandbox/v1/deliveries',
  resendCallback: '/sandbox/v1/callbacks/{notifyId}/resend',
  replayCallback: '/sandbox/v1/callbacks/{notifyId}/replay',
  fault: '/sandbox/v1/faults/{id}',
  deliveryFaults: '/sandbox/v1/delivery-faults',
  deliveryFault: '/sandbox/v1/delivery-faults/{id}',
  expectations: '/sandbox/v1/expectations',
  expectation: '/sandbox/v1/expectations/{id}',
  links: '/sandbox/v1/links',
  threeDsPage: '/sandbox/3ds/{orderNo}',
  threeDsDecision: '/sandbox/3ds/{orderNo}/{decision}',
  /** The dashboard; `GET /` serves it too, to browsers. Its script and styles are files of their own (a strict CSP). */
  dashboard: '/sandbox/dashboard',
  dashboardScript: '/sandbox/dashboard.js',
  dashboardStyles: '/sandbox/dashboard.css',
} as const;

export type SandboxOperation = keyof typeof SANDBOX_PATHS;

/** The field of the 3-D Secure page's forms that carries its anti-forgery token. */
export const FORM_TOKEN_FIELD = 'token';
