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
  threeDsPage: '/sandbox/3ds/{orderNo}',
  threeDsDecision: '/sandbox/3ds/{orderNo}/{decision}',
} as const;

export type SandboxOperation = keyof typeof SANDBOX_PATHS;

/** The field of the 3-D Secure page's forms that carries its anti-forgery token. */
export const FORM_TOKEN_FIELD = 'token';
