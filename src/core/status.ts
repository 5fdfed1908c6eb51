/** Status values of a payment order, as the specification lists them. */
export const PAYMENT_STATUSES = ['INITIAL', 'PENDING', 'SUCCESS', 'FAIL', 'CLOSE'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Once an order reaches one of these, it never changes again (DESIGN.md §5). */
export const TERMINAL_PAYMENT_STATUSES: ReadonlySet<PaymentStatus> = new Set(['SUCCESS', 'FAIL', 'CLOSE']);

export function isPaymentStatus(value: unknown): value is PaymentStatus {
  return typeof value === 'string' && (PAYMENT_STATUSES as readonly string[]).includes(value);
}

export function isTerminalStatus(status: PaymentStatus): boolean {
  return TERMINAL_PAYMENT_STATUSES.has(status);
}

/** Status values of a refund order. */
export const REFUND_STATUSES = ['INITIAL', 'PENDING', 'SUCCESS', 'FAIL'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** `data.nextAction.actionType` values. */
export const NEXT_ACTION_TYPES = ['SWIPE_CARD', 'INPUT_OTP', 'INPUT_PIN', 'REDIRECT_3DS'] as const;
export type NextActionType = (typeof NEXT_ACTION_TYPES)[number];

/**
 * One sample of the specification spells the OTP action differently. Spellings are matched without regard to
 * case, and the transposed `INPUT_OPT` maps to `INPUT_OTP`, so that the rest of the code compares against `NEXT_ACTION_TYPES` only.
 */
const NEXT_ACTION_ALIASES: Readonly<Record<string, NextActionType>> = {
  INPUT_OTP: 'INPUT_OTP',
  INPUT_OPT: 'INPUT_OTP',
  INPUT_PIN: 'INPUT_PIN',
  REDIRECT_3DS: 'REDIRECT_3DS',
  SWIPE_CARD: 'SWIPE_CARD',
};

export function normalizeNextActionType(value: unknown): NextActionType | undefined {
  if (typeof value !== 'string') return undefined;
  return NEXT_ACTION_ALIASES[value.trim().toUpperCase()];
}

export { NOTIFY_LANGUAGES, NOTIFY_METHODS, type NotifyLanguage, type NotifyMethod } from './notify.js';

/** `refundWay` values (public documentation of the real service). */
export const REFUND_WAYS = ['Original', 'BankAccount'] as const;
export type RefundWay = (typeof REFUND_WAYS)[number];

/** The `type` of every callback notification. */
export const CALLBACK_TYPE = 'MACQUIRING_CALLBACK';
