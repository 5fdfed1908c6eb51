import type { PartialTranslation } from './translation.js';

/**
 * English words of the first frame (the order summary, the choice of method, the POS form): they ship with the
 * element. The other forms bring theirs (en-bank-account.ts, en-reference-code.ts), the session's chunk those of
 * the steps, results and errors (en-steps.ts): together they are the whole catalog (test/element/catalogs.test.ts).
 */
const en: PartialTranslation = {
  $code: 'en',
  $name: 'English',
  $dir: 'ltr',

  testMode: 'Test mode',
  total: 'Total',
  paymentMethod: 'Payment method',
  method: { Pos: 'Card at the terminal', BankAccount: 'Bank account', ReferenceCode: 'Reference code' },
  methodHint: {
    Pos: 'Pay by card at the shop’s POS terminal.',
    BankAccount: 'Pay from your bank account and confirm with your bank.',
    ReferenceCode: 'Get a 9-digit code and pay it at any payment point.',
  },

  label: {
    sn: 'Terminal serial number',
  },
  hint: {
    sn: 'Shown on the terminal’s screen or printed on its back.',
  },

  orderReference: 'Order',
  pay: (amount) => `Pay ${amount}`,
  processing: 'Processing…',
  unloaded: 'The payment could not load. Check your connection and reload the page.',
};

export default en;
