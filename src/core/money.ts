/**
 * Amounts travel as integers in minor units everywhere; only display turns them into text, here.
 */

/** How many minor units a currency has, as Intl knows it (EGP 2, JPY 0, KWD 3). */
export function minorUnitDigits(currency: string): number {
  let digits = MINOR_DIGITS.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    MINOR_DIGITS.set(currency, digits);
  }
  return digits;
}
// A formatter costs far more to make than to use (a page shows the same amount in several places): made once.
const MINOR_DIGITS = new Map<string, number>();
const FORMATTERS = new Map<string, Intl.NumberFormat>();
/** Arabic in Latin digits: how an element writes numbers for `ar` (its locale without a region). */
export const ARABIC_LATIN_DIGITS = 'ar-u-nu-latn';
/** Pounds written without Intl, by locale: the amount's digits grouped by commas, with a decimal point. */
const english = (amount: string) => `EGP\u00a0${amount}`;
const PLAIN_POUNDS = new Map([
  ['en', english],
  ['en-us', english],
  [ARABIC_LATIN_DIGITS, (amount: string) => `\u200f${amount}\u00a0ج.م.\u200f`],
]);

/**
 * The decimal text of an amount in minor units, exact for every safe integer ("123456" with 2 digits ->
 * "1234.56"), built from the digits rather than by division so that no floating-point rounding happens.
 */
export function minorUnitsToDecimal(total: number, digits: number): string {
  if (!Number.isSafeInteger(total)) throw new RangeError('amount must be a safe integer of minor units');
  const sign = total < 0 ? '-' : '';
  const text = String(Math.abs(total)).padStart(digits + 1, '0');
  if (digits === 0) return `${sign}${text}`;
  return `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Formats an amount in minor units for display, e.g. (123456, 'EGP', 'en') -> "EGP 1,234.56". */
export function formatMinorUnits(
  total: number,
  currency: string,
  locale?: string | readonly string[],
  options?: Intl.NumberFormatOptions,
): string {
  // Egyptian pounds in English and in Arabic (Latin digits) without Intl, as Intl writes them ("EGP 1,234.56"; "1,234.56
  // ج.م." between right-to-left marks; the same in Node and every browser engine, tested): a page's first
  // Intl.NumberFormat starts ICU before the first frame can paint, and the service's orders are in pounds.
  const plain = currency === 'EGP' && total >= 0 && !options ? PLAIN_POUNDS.get(String(locale).toLowerCase()) : undefined;
  if (plain) return plain(minorUnitsToDecimal(total, 2).replace(/\B(?=(\d{3})+\.)/g, ','));
  const key = JSON.stringify([locale, currency, options]);
  let format = FORMATTERS.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale as string | string[] | undefined, { style: 'currency', currency, ...options });
    if (FORMATTERS.size < 64) FORMATTERS.set(key, format);
  }
  // The wire's minor units follow the currency, whatever fraction digits the display options ask for.
  const digits = minorUnitDigits(currency);
  // Intl accepts decimal strings and formats them without converting to a float first.
  return format.format(minorUnitsToDecimal(total, digits) as unknown as number);
}
