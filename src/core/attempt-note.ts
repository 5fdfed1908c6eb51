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

/** A note as it is kept and sent, or `undefined` for anything else (a record written by another version, a bad value). */
export function attemptNoteOf(value: unknown): AttemptNote | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const note = value as Record<string, unknown>;
  const text = (name: string, pattern: RegExp) => (typeof note[name] === 'string' && pattern.test(note[name]) ? note[name] : undefined);
  switch (note['payMethod']) {
    case 'Pos': {
      const sn = text('sn', /^[A-Za-z0-9-]{1,32}$/);
      return sn === undefined ? undefined : { payMethod: 'Pos', sn };
    }
    case 'ReferenceCode': {
      const referenceCode = text('referenceCode', /^\d{6,20}$/);
      return referenceCode === undefined ? undefined : { payMethod: 'ReferenceCode', referenceCode };
    }
    case 'BankAccount': {
      const accountEnding = text('accountEnding', /^[A-Za-z0-9]{4}$/);
      return accountEnding === undefined ? undefined : { payMethod: 'BankAccount', accountEnding };
    }
  }
  return undefined;
}

/**
 * The note of an attempt a create sends, from its order: the terminal, or the account's last four characters (none
 * when the number has fewer than eight); a reference code's note waits for the service's answer (`referenceCode`).
 */
export function attemptNoteOfOrder(order: { payMethod?: unknown; sn?: unknown; bankAccountNumber?: unknown }, referenceCode?: unknown): AttemptNote | undefined {
  if (order.payMethod === 'Pos') return attemptNoteOf({ payMethod: 'Pos', sn: order.sn });
  if (order.payMethod === 'ReferenceCode') return attemptNoteOf({ payMethod: 'ReferenceCode', referenceCode });
  if (order.payMethod !== 'BankAccount' || typeof order.bankAccountNumber !== 'string') return undefined;
  const number = order.bankAccountNumber.replace(/\s/g, '');
  return number.length >= 2 * ACCOUNT_ENDING_DIGITS ? attemptNoteOf({ payMethod: 'BankAccount', accountEnding: number.slice(-ACCOUNT_ENDING_DIGITS) }) : undefined;
}
