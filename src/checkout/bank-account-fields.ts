/**
 * The bank account form's fields, a row of the forms' table (fields.ts): apart from it, because the isolated frame
 * that holds them (src/isolated-fields) carries these rows and nothing of the others.
 */
import type { FieldSpec } from './field-spec.js';

export const BANK_ACCOUNT_FIELDS = [
  { name: 'bankAccountNumber', wire: 'bankAccountNumber', autocomplete: 'off', maxlength: 40, hint: 'bankAccountNumber', secret: true },
  { name: 'bankCode', wire: 'bankCode', inputmode: 'numeric', autocomplete: 'off', maxlength: 11, hint: 'bankCode' },
  { name: 'dobDay', wire: 'dobDay', inputmode: 'numeric', autocomplete: 'bday-day', maxlength: 2, digits: true, secret: true, control: 'date-part' },
  { name: 'dobMonth', wire: 'dobMonth', inputmode: 'numeric', autocomplete: 'bday-month', maxlength: 2, digits: true, secret: true, control: 'date-part' },
  { name: 'dobYear', wire: 'dobYear', inputmode: 'numeric', autocomplete: 'bday-year', maxlength: 4, digits: true, secret: true, control: 'date-part' },
] as const satisfies readonly FieldSpec<string>[];
