/**
 * Numbers and moments in an element's locale (the one its amounts are written in: LocalizeController.formatLocale),
 * for the words of the steps. Apart from the controller, since the first frame writes only an amount.
 */
import type { LocalizeController } from './controllers/localize.js';

/** A number, with the locale's digits. */
export function numberIn(localize: LocalizeController, value: number, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(localize.formatLocale, options).format(value);
}

/** A moment (a date, a time, or both: `options`), with the locale's digits, as its amounts are written. */
export function dateTimeIn(localize: LocalizeController, moment: number | Date, options: Intl.DateTimeFormatOptions): string {
  return new Intl.DateTimeFormat(localize.formatLocale, options).format(moment);
}

/** A moment as a payer reads a deadline: the time today, else the day and the time. */
export function timeIn(localize: LocalizeController, epochMs: number, now = Date.now()): string {
  const sameDay = new Date(epochMs).toDateString() === new Date(now).toDateString();
  return dateTimeIn(localize, epochMs, sameDay ? { hour: 'numeric', minute: '2-digit' } : { dateStyle: 'medium', timeStyle: 'short' });
}
