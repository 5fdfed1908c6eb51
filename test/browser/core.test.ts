// src/core in real browsers: the element validates and formats with exactly this code.
import { expect } from '@open-wc/testing';
import { ARABIC_LATIN_DIGITS, canonicalJson, formatMinorUnits, minorUnitsToDecimal, toAsciiDigits, validateCreateRequest } from '../../src/core/index.js';
import { POUND_TOTALS } from '../core/fixtures.js';

describe('src/core in the browser', () => {
  it('validates a reference code order and reports each broken field by name', () => {
    const result = validateCreateRequest(
      {
        reference: 'order-1',
        amount: { total: '12500', currency: 'EGP' },
        product: { name: 'Beans', description: '1 kg' },
        payMethod: 'ReferenceCode',
        country: 'EG',
        notify: { notifyUserName: 'Mona', notifyLanguage: 'Arabic', notifyMethod: 'SMS', notifyUserMobile: 'abc' },
      },
      { now: new Date('2026-11-22T00:00:00Z') },
    );
    expect(result.ok).to.equal(false);
    expect(result.ok ? [] : result.violations.map((violation) => [violation.field, violation.rule])).to.deep.equal([
      ['notify.notifyUserMobile', 'format'],
    ]);
  });

  it('normalises digit strings and defaults the same way as on the server', () => {
    const result = validateCreateRequest({
      reference: 'order-2',
      amount: { total: '500', currency: 'EGP' },
      product: { name: 'Beans', description: '1 kg' },
      payMethod: 'ReferenceCode',
      country: 'EG',
      notify: { notifyUserName: 'Mona', notifyLanguage: 'English', notifyUserEmail: 'mona@example.com', notifyUserMobile: '+201001234567' },
    });
    expect(result.ok && canonicalJson(result.value)).to.equal(
      '{"amount":{"currency":"EGP","total":500},"country":"EG","expireAt":30,"notify":{"notifyLanguage":"English","notifyMethod":"BOTH",' +
        '"notifyUserEmail":"mona@example.com","notifyUserMobile":"+201001234567","notifyUserName":"Mona"},"payMethod":"ReferenceCode",' +
        '"product":{"description":"1 kg","name":"Beans"},"reference":"order-2"}',
    );
  });

  it("formats minor units with the browser's Intl, in English and Arabic", () => {
    expect(formatMinorUnits(123_456, 'USD', 'en-US')).to.equal('$1,234.56');
    expect(formatMinorUnits(12_500, 'EGP', 'ar-EG')).to.match(/١٢٥/);
  });

  it("writes pounds in English and Arabic (Latin digits) without Intl exactly as this browser's Intl does", () => {
    const { NumberFormat } = Intl;
    let made = 0;
    Intl.NumberFormat = function (...args: ConstructorParameters<typeof NumberFormat>) {
      made++;
      return new NumberFormat(...args);
    } as typeof NumberFormat;
    let written: (readonly [number, string, string])[];
    try {
      written = POUND_TOTALS.flatMap((total) => ['en', 'en-US', ARABIC_LATIN_DIGITS].map((locale) => [total, locale, formatMinorUnits(total, 'EGP', locale)] as const));
    } finally {
      Intl.NumberFormat = NumberFormat;
    }
    expect(made, 'formatters made').to.equal(0);
    for (const [total, locale, text] of written) {
      const decimal = minorUnitsToDecimal(total, 2) as unknown as number;
      expect(text, `${total} ${locale}`).to.equal(new Intl.NumberFormat(locale, { style: 'currency', currency: 'EGP' }).format(decimal));
    }
  });

  it('reads Arabic-Indic digits as ASCII', () => {
    expect(toAsciiDigits('٠٥/٠١/١٩٩٠')).to.equal('05/01/1990');
  });
});
