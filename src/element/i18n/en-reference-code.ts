import type { ShippedTerms } from './translation.js';

/**
 * English words of the reference code form: the element registers them when the form's chunk has come (parts/forms.ts),
 * under the words already there (en.ts, and any a merchant registered).
 */
const enReferenceCode: ShippedTerms = {
  label: {
    notifyUserName: 'Your name',
    notifyUserEmail: 'Email',
    notifyUserMobile: 'Mobile number',
    notifyLanguage: 'Language of the message',
    notifyMethod: 'Send me the code by',
  },
  hint: {
    notifyUserMobile: 'With the country code, e.g. +20 100 123 4567.',
  },
  notifyMethodOption: { BOTH: 'SMS and email', EMAIL: 'Email', SMS: 'SMS' },
  notifyLanguageOption: { English: 'English', Arabic: 'العربية' },
  contactOnFile: {
    EMAIL: 'We’ll send the code to the email the shop has on file, unless you type another.',
    SMS: 'We’ll send the code to the mobile number the shop has on file, unless you type another.',
    BOTH: 'We’ll send the code to the email and mobile number the shop has on file, unless you type others.',
  },
  getCode: 'Get my code',
};

export default enReferenceCode;
