import { text } from './formats.js';
import { isPayMethod } from './pay-methods.js';
import { BANK_ACCOUNT_DETAILS, PAYER_CREATE_RULES, type RuleTable } from './rules.js';
import { validate } from './validate.js';

/**
 * What the kit keeps of a checkout's attempt (src/server/stores/checkouts) and tells with its status to a page of
 * the same checkout that did not make it (another tab, another device): which payment is in progress — the
 * terminal it waits at, the reference code to pay (its voucher), or the bank account's last four digits, never more
 * of it. The service's status answer carries none of them; the kit adds this under `data.payment`
 * (ATTEMPT_NOTE_FIELD) of a status answer proved by the checkout's token and of an `ORDER_EXISTS`.
 */
export type AttemptNote =
  | { payMethod: 'Pos'; sn: string }
  | { payMethod: 'ReferenceCode'; referenceCode: string }
  | { payMethod: 'BankAccount'; accountEnding: string };

/** Where a status answer's data carries the attempt's note. */
export const ATTEMPT_NOTE_FIELD = 'payment';

/** How many of a bank account's last characters a note keeps: of a number at least twice as long, never more of it. */
export const ACCOUNT_ENDING_DIGITS = 4;

/**
 * Each method's note as a rule table, read by `validate` as every request is: a terminal's by the create's own payer
 * rows (rules.ts, PAYER_CREATE_RULES.Pos: its serial number, `sn`), a reference code of 6 to 20 digits, an account's
 * last characters only, never more of it.
 */
const NOTE_RULES: Record<AttemptNote['payMethod'], RuleTable> = {
  Pos: PAYER_CREATE_RULES.Pos,
  ReferenceCode: { fields: { referenceCode: { required: true, format: text({ max: 20, min: 6, pattern: /^\d+$/ }) } } },
  BankAccount: { fields: { accountEnding: { required: true, format: text({ max: ACCOUNT_ENDING_DIGITS, min: ACCOUNT_ENDING_DIGITS, pattern: /^[A-Za-z0-9]+$/ }) } } },
};

/**
 * A note as it is kept and sent, or `undefined` for anything else (a record written by another version, a bad value):
 * the one reader of a note, the kit's (its records) and the element's (src/checkout/transitions.ts, knownFromNote).
 */
export function attemptNoteOf(value: unknown): AttemptNote | undefined {
  const method = (value as { payMethod?: unknown } | null | undefined)?.payMethod;
  const checked = isPayMethod(method) ? validate(NOTE_RULES[method], value) : undefined;
  return checked?.ok ? ({ payMethod: method, ...checked.value } as AttemptNote) : undefined;
}

/**
 * The note of an attempt a create sends, from its order: the terminal, or the account's last four characters (none
 * when the number has fewer than eight); a reference code's note waits for the service's answer (`referenceCode`).
 */
export function attemptNoteOfOrder(order: { payMethod?: unknown; sn?: unknown; bankAccountNumber?: unknown }, referenceCode?: unknown): AttemptNote | undefined {
  if (order.payMethod === 'Pos') return attemptNoteOf({ payMethod: 'Pos', sn: order.sn });
  if (order.payMethod === 'ReferenceCode') return attemptNoteOf({ payMethod: 'ReferenceCode', referenceCode });
  // The number as the create's rule reads it (its spaces gone), or none when that rule refuses it.
  const account = order.payMethod === 'BankAccount' ? BANK_ACCOUNT_DETAILS.fields['bankAccountNumber']!.format(order.bankAccountNumber, 'bankAccountNumber') : undefined;
  const number = account?.ok ? String(account.value) : '';
  return number.length >= 2 * ACCOUNT_ENDING_DIGITS ? attemptNoteOf({ payMethod: 'BankAccount', accountEnding: number.slice(-ACCOUNT_ENDING_DIGITS) }) : undefined;
}
