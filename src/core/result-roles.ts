/**
 * The result codes the client acts on, by the role each plays, and every code with whether it may be retried (their
 * messages and the tables they appear in: errors.ts, RESULT_CODES, whose rows must be exactly these codes). A module
 * of its own, so that the isolated frame's page carries the two roles only, and the element neither the service's
 * messages nor their families: it reads a code's retry advice, never its wording.
 */
export const RESULT_ROLES = {
  /** The kit or the service refused the request's proof (a used ticket, a refused stream): `02000`. */
  refused: '02000',
  /** The request broke the rules; `data.errors` names the fields: `02001`. */
  invalid: '02001',
} as const;

/**
 * Every result code the specification and the kit answer (errors.ts, RESULT_CODES, has one row per key here: the
 * compiler holds the two together), and whether the same request may succeed if sent again later, unchanged.
 */
export const RESULT_RETRYABLE = {
  '02000': false,
  '02001': false,
  '02002': false,
  '02003': false,
  '02004': false,
  '02006': false,
  '02007': false,
  '50003': true,
  '09': true,
  '90': true,
  '91': true,
  '96': true,
  '97': true,
  '98': false,
  '99': false,
  '20000': false,
  TOO_MANY_REQUESTS: true,
  ORDER_EXISTS: false,
  CHECKOUT_CHANGED: false,
  ATTEMPTS_EXHAUSTED: false,
} as const satisfies Record<string, boolean>;

export type ErrorCode = keyof typeof RESULT_RETRYABLE;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(RESULT_RETRYABLE, code);
}
