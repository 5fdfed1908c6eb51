/**
 * The service's result codes: one table for every code the specification lists, with its message and the tables it
 * appears in. The merchant kit and the sandbox read messages from here; every reader takes a code's retry advice from
 * result-roles.ts (RESULT_RETRYABLE, whose keys this table's rows must match), which the element carries alone.
 */
import type { PayMethod } from './pay-methods.js';
import { isErrorCode, RESULT_RETRYABLE, type ErrorCode } from './result-roles.js';
import type { Envelope, Violation } from './types.js';

/** Which of the specification's error tables a code appears in; `kit` for the merchant kit's own answers. */
export type ErrorFamily = 'payment' | 'referenceCode' | 'refund' | 'kit';

export interface ResultCode {
  message: string;
  families: readonly ErrorFamily[];
}

export { isErrorCode, RESULT_RETRYABLE, RESULT_ROLES, type ErrorCode } from './result-roles.js';

export const SUCCESS_CODE = '00000';
export const SUCCESS_MESSAGE = 'SUCCESSFUL';

export const RESULT_CODES = {
  '02000': { message: 'authentication failed.', families: ['payment', 'refund'] },
  '02001': { message: 'request params not valid.', families: ['payment', 'refund'] },
  '02002': { message: 'merchant not configured with this function.', families: ['payment', 'refund'] },
  '02003': { message: 'payMethod not support.', families: ['payment'] },
  '02004': { message: 'the payment reference already exists.', families: ['payment'] },
  '02006': { message: 'not found.', families: ['refund'] },
  '02007': { message: 'merchant not available.', families: ['payment', 'refund'] },
  '50003': { message: 'service not available, please try again.', families: ['payment', 'refund'] },
  '09': { message: 'Time out.', families: ['referenceCode'] },
  '90': { message: 'the service failure.', families: ['referenceCode'] },
  '91': { message: 'Refund error, please try again later.', families: ['referenceCode'] },
  '96': { message: 'Search order error, please try again later.', families: ['referenceCode'] },
  '97': { message: 'Create checkout session failed.', families: ['referenceCode'] },
  '98': { message: 'Invalid request header with requestId.', families: ['referenceCode'] },
  '99': { message: 'Request channel parameters are not valid.', families: ['referenceCode'] },
  '20000': { message: 'Duplicate merchant order number.', families: ['referenceCode'] },
  /**
   * Not the service's: the merchant kit refused a call because of one of its limits (README, "Limits we
   * chose"), before it reached the service. `data`: `{limit, retryAfterSeconds}`; the answer also carries
   * `Retry-After`.
   */
  TOO_MANY_REQUESTS: { message: 'too many requests, please try again later.', families: ['kit'] },
  /**
   * Not the service's: the merchant kit made no order because this checkout already has one that is paid, or still
   * pending and not left by the payer (README, "One checkout, one payment"). `data` is that order's status, as a
   * status query answers it; the answer also carries its order token.
   */
  ORDER_EXISTS: { message: 'this checkout already has an order that is paid or in progress.', families: ['kit'] },
  /**
   * Not the service's: the merchant kit made no order because this cart (the checkout's reference) is paid already, at
   * another amount or currency than its token carries: the cart changed after it was paid (docs/one-payment.md). `data`
   * is the paid order's status; its `amount` is what was paid.
   */
  CHECKOUT_CHANGED: { message: 'this cart was paid at another amount.', families: ['kit'] },
  /** Not the service's: every attempt the checkout token allows (`attempts`) was made and ended unpaid. */
  ATTEMPTS_EXHAUSTED: { message: 'no attempt of this checkout is left.', families: ['kit'] },
} as const satisfies Record<ErrorCode, ResultCode>;

/** The code a create answers when its reference was used before (rule 4 of create). */
export const DUPLICATE_REFERENCE_CODES = { Pos: '02004', BankAccount: '02004', ReferenceCode: '20000' } as const satisfies Record<
  PayMethod,
  ErrorCode
>;

export function isDuplicateReference(code: string): boolean {
  return (Object.values(DUPLICATE_REFERENCE_CODES) as string[]).includes(code);
}

/**
 * Codes after which a create may or may not have made its order: the service (or the kit, for a service that
 * did not answer in time) could not say. The order is looked up by its reference; the reference is never
 * replaced for it, so a repeat can only meet the same order (`02004`/`20000`).
 */
export const CREATE_OUTCOME_UNKNOWN_CODES = ['50003', '09', '90'] as const satisfies readonly ErrorCode[];

export function isCreateOutcomeUnknown(code: string): boolean {
  return (CREATE_OUTCOME_UNKNOWN_CODES as readonly string[]).includes(code);
}

/**
 * Codes the element reports in `svc-error` when the problem is not an envelope from the service: the merchant
 * endpoint could not be reached or answered outside the protocol, or the element is configured wrongly.
 */
export const CLIENT_ERROR_CODES = {
  NETWORK: { message: 'the merchant endpoint could not be reached', retryable: true },
  TIMEOUT: { message: 'the merchant endpoint did not answer in time', retryable: true },
  HTTP: { message: 'the merchant endpoint answered with an HTTP error', retryable: false },
  BAD_RESPONSE: { message: 'the merchant endpoint answered something other than an envelope', retryable: false },
  CONFIG: { message: 'the element is not configured correctly', retryable: false },
  REDIRECT_URL: { message: 'the 3-D Secure address is not an http(s) URL', retryable: false },
  STATUS_UNKNOWN: { message: 'the order status could not be checked', retryable: true },
  ORDER_MISMATCH: { message: 'an order with this reference exists for another amount or currency', retryable: false },
  /** A chunk of the element's code could not be fetched (offline, a site that moved its files); the message is the browser's. */
  UNLOADED: { message: 'a part of the element could not be loaded', retryable: true },
} as const satisfies Record<string, { message: string; retryable: boolean }>;

export type ClientErrorCode = keyof typeof CLIENT_ERROR_CODES;

/** The specification's error sample for a payment that does not exist uses this wording with `02006`. */
export const PAYMENT_NOT_FOUND_MESSAGE = 'payment not found.';

export function isSuccess(envelope: Pick<Envelope, 'code'>): boolean {
  return envelope.code === SUCCESS_CODE;
}

/** Codes of one family in numeric order, e.g. the codes a `ReferenceCode` create can answer. */
export function codesOf(family: ErrorFamily): ErrorCode[] {
  return (Object.keys(RESULT_CODES) as ErrorCode[])
    .filter((code) => (RESULT_CODES[code].families as readonly ErrorFamily[]).includes(family))
    .sort((a, b) => Number(a) - Number(b));
}

/** Whether a code means "send the same request again later". Unknown codes are not retryable. */
export function isRetryable(code: string): boolean {
  if (isErrorCode(code)) return RESULT_RETRYABLE[code];
  return Object.hasOwn(CLIENT_ERROR_CODES, code) && CLIENT_ERROR_CODES[code as ClientErrorCode].retryable;
}

export function successEnvelope<T>(data: T): Envelope<T> {
  return { code: SUCCESS_CODE, message: SUCCESS_MESSAGE, data };
}

export function errorEnvelope<T = null>(code: ErrorCode, options: { message?: string; data?: T } = {}): Envelope<T> {
  return { code, message: options.message ?? RESULT_CODES[code].message, data: options.data ?? null };
}

/** `data` of a `02001` envelope: which fields broke which rule. */
export interface InvalidParamsData {
  errors: Violation[];
}

/**
 * The envelope for a list of violations: `02003` when the only problem is a `payMethod` the service does not
 * support (the specification's rule 5 of create), `02001` with every violation otherwise.
 */
export function envelopeForViolations(violations: Violation[]): Envelope<InvalidParamsData> {
  const unsupportedMethod = violations.length === 1 && violations[0]?.rule === 'unsupported';
  if (unsupportedMethod) return errorEnvelope('02003', { data: { errors: violations } });
  return errorEnvelope('02001', { data: { errors: violations } });
}

/** Reads the violations out of a `02001` envelope, whatever produced it. */
export function violationsOf(envelope: Envelope): Violation[] {
  const data = envelope.data as Partial<InvalidParamsData> | null | undefined;
  if (!data || !Array.isArray(data.errors)) return [];
  return data.errors
    .filter(
      (item): item is Violation =>
        typeof item === 'object' && item !== null && typeof item.field === 'string' && typeof item.message === 'string',
    )
    .map(({ field, rule, message, triesLeft }) => ({
      field,
      rule: typeof rule === 'string' ? rule : '',
      message,
      ...(Number.isSafeInteger(triesLeft) && (triesLeft as number) >= 0 ? { triesLeft } : {}),
    }));
}
