// Who a reference code message goes to, as the per-recipient limits count them.
import { getCountryCallingCode, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { emailKeyOf, phoneKeyOf } from '../../src/server/payments/recipients.js';

describe('phoneKeyOf', () => {
  it("reads every spelling of one number as its E.164 form, in the order's country", () => {
    for (const phone of ['+201001234567', '00201001234567', '01001234567', '201001234567', '+20 100 123 4567', '(010) 0123-4567', '0020-100-123-4567']) {
      expect(phoneKeyOf(phone, 'EG'), phone).toBe('+201001234567');
    }
    expect(phoneKeyOf('08031234567', 'NG')).toBe('+2348031234567');
    expect(phoneKeyOf('+2348031234567', 'EG')).toBe('+2348031234567');
  });

  it('says of a number written in E.164 what the library says, whether or not it parses it', () => {
    const countries = ['EG', 'SA', 'AE', 'NG', 'KE', 'US', 'CA', 'GB', 'IT', 'DE', 'FR', 'RU', 'JP', 'IN', 'BR', 'MX', 'CI', 'SN', 'MA', 'JO'];
    let seed = 7;
    const random = (below: number) => (seed = (seed * 48_271) % 2_147_483_647) % below;
    for (const country of countries) {
      const code = getCountryCallingCode(country as CountryCode);
      for (let index = 0; index < 120; index++) {
        // Every length around the country's, and national numbers that start with anything, 0 and 1 among them.
        const national = Array.from({ length: 6 + random(9) }, () => String(random(10))).join('');
        for (const phone of [`+${code}${national}`, `+${code}0${national}`, `+${code}1${national}`]) {
          const parsed = parsePhoneNumberFromString(phone, country as CountryCode);
          const library = parsed?.isPossible() ? parsed.number : phone.replace(/\D/g, '');
          expect(phoneKeyOf(phone, country), `${phone} in ${country}`).toBe(library);
        }
      }
    }
  });

  it('counts a number it cannot read by its digits', () => {
    expect(phoneKeyOf('12345', 'EG')).toBe('12345');
    expect(phoneKeyOf('0100 123 4567', 'ZZ')).toBe('01001234567');
  });
});

describe('emailKeyOf', () => {
  it('folds letter case, a +tag and trailing dots into one mailbox', () => {
    for (const email of ['mona@example.com', 'Mona@Example.COM', 'mona+offers@example.com', 'mona@example.com.', 'MONA+2@EXAMPLE.COM.', 'mona.@example.com', ' mona@example.com ']) {
      expect(emailKeyOf(email), email).toBe('mona@example.com');
    }
    expect(emailKeyOf('mona.hassan@example.com')).toBe('mona.hassan@example.com');
    expect(emailKeyOf('ahmed@example.com')).not.toBe(emailKeyOf('mona@example.com'));
  });
});
