/**
 * The shape of a row of the payer's fields (fields.ts has the rows, and the names: `FieldSpec<FieldName>` there). Apart
 * so that the rows of each method (pos-fields.ts, bank-account-fields.ts, code-fields.ts) and the table that gathers
 * them do not import each other.
 */
import type { NotifyLanguage } from '../core/notify.js';
import type { UserInfo } from '../core/types.js';

/** What the shop may already know of the payer: its `userInfo`, and the `language` setting (the one of their messages). */
export type Known = UserInfo & { language?: NotifyLanguage | undefined };

/** Fields with a hint under them (their words are `hint[name]` in the catalogs). */
export type HintName = 'sn' | 'bankAccountNumber' | 'bankCode' | 'notifyUserMobile' | 'otp' | 'pin';

export interface FieldSpec<Name extends string = string> {
  name: Name;
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
  /** How the form asks for it when not with a text input: one of the date of birth's three inputs, radios, a list. */
  control?: 'date-part' | 'choice' | 'select';
  /** What a `choice` or a `select` offers, the first by default. */
  choices?: readonly string[];
  /** The payer's detail the shop may already know (`Known`), filling the field while it is empty. */
  prefill?: keyof Known;
  /** Asked, and sent, only when this holds of the method's values (a contact the chosen channel does not use is neither). */
  askedWhen?: (values: Readonly<Record<string, string | undefined>>) => boolean;
}
