import { describe, expect, it, vi } from 'vitest';
import { POUND_TOTALS } from './fixtures.js';
import { ARABIC_LATIN_DIGITS, formatMinorUnits, minorUnitDigits, minorUnitsToDecimal, toAsciiDigits } from '../../src/core/index.js';

describe('money', () => {
  it('knows the minor units of a currency', () => {
    expect(minorUnitDigits('EGP')).toBe(2);
    expect(minorUnitDigits('JPY')).toBe(0);
    expect(minorUnitDigits('KWD')).toBe(3);
  });

  it('turns minor units into exact decimal text', () => {
    expect(minorUnitsToDecimal(123_456, 2)).toBe('1234.56');
    expect(minorUnitsToDecimal(5, 2)).toBe('0.05');
    expect(minorUnitsToDecimal(5, 3)).toBe('0.005');
    expect(minorUnitsToDecimal(700, 0)).toBe('700');
    expect(minorUnitsToDecimal(Number.MAX_SAFE_INTEGER, 2)).toBe('90071992547409.91');
    expect(() => minorUnitsToDecimal(1.5, 2)).toThrow(RangeError);
  });

  it('formats for display with Intl, in the locale asked for', () => {
    expect(formatMinorUnits(123_456, 'USD', 'en-US')).toBe('$1,234.56');
    expect(formatMinorUnits(123_456, 'JPY', 'en-US')).toBe('¥123,456');
    expect(formatMinorUnits(Number.MAX_SAFE_INTEGER, 'USD', 'en-US')).toBe('$90,071,992,547,409.91');
    expect(formatMinorUnits(12_500, 'EGP', 'ar-EG')).toMatch(/١٢٥/);
  });

  it('writes pounds in English and Arabic without Intl exactly as Intl does', () => {
    const made = vi.spyOn(Intl, 'NumberFormat');
    const locales = ['en', 'en-US', 'EN-us', ARABIC_LATIN_DIGITS, 'AR-u-nu-latn'];
    const written = POUND_TOTALS.flatMap((total) => locales.map((locale) => [total, locale, formatMinorUnits(total, 'EGP', locale)] as const));
    // Not one formatter made for them (ICU is never started for an English or Arabic page's amounts in pounds).
    expect(made).not.toHaveBeenCalled();
    made.mockRestore();
    for (const [total, locale, text] of written) {
      expect(text, `${total} ${locale}`).toBe(new Intl.NumberFormat(locale, { style: 'currency', currency: 'EGP' }).format(minorUnitsToDecimal(total, 2) as unknown as number));
    }
  });

  it('leaves other English and Arabic, options and negative amounts to Intl', () => {
    // India groups by lakhs: the fast path's grouping would be wrong there.
    expect(formatMinorUnits(12_345_678, 'EGP', 'en-IN')).toBe('EGP\u00a01,23,456.78');
    // Egypt writes Arabic-Indic digits, Morocco a decimal comma; plain `ar` as the ICU at hand has it.
    const intl = (locale: string, amount: number) => new Intl.NumberFormat(locale, { style: 'currency', currency: 'EGP' }).format(amount);
    expect(formatMinorUnits(12_500, 'EGP', 'ar-EG')).toMatch(/١٢٥/);
    expect(formatMinorUnits(12_500, 'EGP', 'ar')).toBe(intl('ar', 125));
    expect(formatMinorUnits(123_456, 'EGP', 'ar-MA')).toBe(intl('ar-MA', 1234.56));
    expect(intl('ar-MA', 1234.56)).not.toBe(formatMinorUnits(123_456, 'EGP', ARABIC_LATIN_DIGITS));
    expect(formatMinorUnits(12_500, 'EGP', 'en', { currencyDisplay: 'name' })).toBe('125.00 Egyptian pounds');
    expect(formatMinorUnits(-12_500, 'EGP', 'en')).toBe('-EGP\u00a0125.00');
  });
});

describe('toAsciiDigits', () => {
  it('turns Arabic-Indic, Extended Arabic-Indic and fullwidth digits into ASCII, leaving the rest', () => {
    expect(toAsciiDigits('١١٣١٥٦٣٢')).toBe('11315632');
    expect(toAsciiDigits('۰۵-۰۱-۱۹۹۰')).toBe('05-01-1990');
    expect(toAsciiDigits('１２３')).toBe('123');
    expect(toAsciiDigits('N78101818218')).toBe('N78101818218');
  });
});
