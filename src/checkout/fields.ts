/**
 * The payer's fields of each method, and where every other field of the create request comes from. Rules
 * stay in src/core: this table only says how each field is asked for, and under which name it appears.
 */
import type { NotifyLanguage, NotifyMethod, PayMethod } from '../core/index.js';
import { POS_FIELDS } from './pos-fields.js';

/** The payer's fields, by the names the forms use (a view labels each; see the element's `Translation`). */
export type FieldName =
  | 'sn'
  | 'bankAccountNumber'
  | 'bankCode'
  | 'dobDay'
  | 'dobMonth'
  | 'dobYear'
  | 'notifyUserName'
  | 'notifyMethod'
  | 'notifyUserEmail'
  | 'notifyUserMobile'
  | 'notifyLanguage'
  | 'otp'
  | 'pin';

/** Fields with a hint under them. */
export type HintName = 'sn' | 'bankAccountNumber' | 'bankCode' | 'notifyUserMobile' | 'otp' | 'pin';

export interface FieldSpec {
  name: FieldName;
  /** The wire field it fills (dotted), whose rules apply. */
  wire: string;
  type?: 'text' | 'email' | 'tel' | 'password';
  inputmode?: 'text' | 'numeric' | 'email' | 'tel';
  autocomplete: string;
  maxlength?: number;
  /** Typed digits only (Arabic-Indic ones too). */
  digits?: boolean;
  hint?: HintName;
  /**
   * The payer's secret (an account number, a birth date, a code): never stored, and forgotten as soon as the
   * service has it.
   */
  secret?: boolean;
}

/** Fields per method, in the order they are asked. The date of birth is three fields shown as one group. */
export const METHOD_FIELDS: Record<PayMethod, readonly FieldSpec[]> = {
  Pos: POS_FIELDS,
  BankAccount: [
    { name: 'bankAccountNumber', wire: 'bankAccountNumber', autocomplete: 'off', maxlength: 40, hint: 'bankAccountNumber', secret: true },
    { name: 'bankCode', wire: 'bankCode', inputmode: 'numeric', autocomplete: 'off', maxlength: 11, hint: 'bankCode' },
    { name: 'dobDay', wire: 'dobDay', inputmode: 'numeric', autocomplete: 'bday-day', maxlength: 2, digits: true, secret: true },
    { name: 'dobMonth', wire: 'dobMonth', inputmode: 'numeric', autocomplete: 'bday-month', maxlength: 2, digits: true, secret: true },
    { name: 'dobYear', wire: 'dobYear', inputmode: 'numeric', autocomplete: 'bday-year', maxlength: 4, digits: true, secret: true },
  ],
  ReferenceCode: [
    { name: 'notifyUserName', wire: 'notify.notifyUserName', autocomplete: 'name', maxlength: 100 },
    { name: 'notifyMethod', wire: 'notify.notifyMethod', autocomplete: 'off' },
    { name: 'notifyUserEmail', wire: 'notify.notifyUserEmail', type: 'email', inputmode: 'email', autocomplete: 'email', maxlength: 254 },
    { name: 'notifyUserMobile', wire: 'notify.notifyUserMobile', type: 'tel', inputmode: 'tel', autocomplete: 'tel', maxlength: 20, hint: 'notifyUserMobile' },
    { name: 'notifyLanguage', wire: 'notify.notifyLanguage', autocomplete: 'off' },
  ],
};

export const NOTIFY_METHOD_CHOICES: readonly NotifyMethod[] = ['BOTH', 'SMS', 'EMAIL'];
export const NOTIFY_LANGUAGE_CHOICES: readonly NotifyLanguage[] = ['English', 'Arabic'];

/** The form field a wire field is typed into, for a method. */
export function formFieldOf(method: PayMethod, wire: string): FieldName | undefined {
  return METHOD_FIELDS[method].find((field) => field.wire === wire)?.name;
}
