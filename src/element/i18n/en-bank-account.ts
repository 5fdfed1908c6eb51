import type { ShippedTerms } from './translation.js';

/**
 * English words of the bank account form: the element registers them when the form's chunk has come (parts/forms.ts),
 * under the words already there (en.ts, and any a merchant registered).
 */
const enBankAccount: ShippedTerms = {
  label: {
    bankAccountNumber: 'Account number',
    bankCode: 'Bank code',
    dateOfBirth: 'Date of birth of the account holder',
    dobDay: 'Day',
    dobMonth: 'Month',
    dobYear: 'Year',
  },
  hint: {
    bankAccountNumber: 'Letters and digits only, as on your statement.',
    bankCode: 'The code of your bank, e.g. 033.',
    dateOfBirth: 'For example 05 01 1990.',
  },
  datePlaceholder: { day: 'DD', month: 'MM', year: 'YYYY' },
  frameTitle: { BankAccount: 'Bank account details' },
};

export default enBankAccount;
