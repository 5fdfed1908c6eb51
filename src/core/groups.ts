/**
 * Rules over several fields of a table (rules.ts `groups`), as formats.ts's are over one: each carries its own check,
 * so that a bundle carries the checks of the tables it uses and no other (the element's tables have the date of
 * birth's, not "one of these is required").
 */
import type { Violation } from './types.js';

export interface GroupRule {
  /** The fields it reads: a table without one of them (the isolated frame's) leaves it out (`withoutFields`). */
  readonly fields: readonly string[];
  /** Its violation, if any, given a reader of the table's normalised output and the moment "now". */
  check(read: (field: string) => unknown, now: Date): Violation | undefined;
}

/** At least one of the fields is given. */
export function anyOf(fields: readonly [string, ...string[]]): GroupRule {
  return {
    fields,
    check: (read) =>
      fields.some((field) => read(field) !== undefined)
        ? undefined
        : { field: fields[0], rule: 'required', message: `${fields.join(' or ')} is required` },
  };
}

/** Day, month and year that form a real calendar date, before today (UTC), in `minYear` or later. */
export function dateInPast(day: string, month: string, year: string, minYear: number): GroupRule {
  return {
    fields: [day, month, year],
    check(read, now) {
      const parts = [day, month, year].map(read);
      // A part that broke its own rule has already been reported.
      if (parts.some((part) => typeof part !== 'string')) return undefined;
      const [d, m, y] = parts.map(Number) as [number, number, number];
      const together = `${day}, ${month} and ${year}`;
      if (m < 1 || m > 12) return { field: month, rule: 'date', message: `${month} must be a month from 1 to 12` };
      if (y < minYear) return { field: year, rule: 'min', message: `${year} must be ${minYear} or later` };
      const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
      if (d < 1 || d > daysInMonth) return { field: day, rule: 'date', message: `${together} must form a real calendar date` };
      const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
      if (Date.UTC(y, m - 1, d) >= today) return { field: year, rule: 'past', message: `${together} must be a date in the past` };
      return undefined;
    },
  };
}
