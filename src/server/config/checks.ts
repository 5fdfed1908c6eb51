/**
 * The shapes an option may have, each checked in one place with one message style (errors.ts): numbers within bounds,
 * hooks, stores that answer what the kit calls, addresses.
 */
import { isHttpUrl } from '../../core/index.js';
import { isLiveAddressAllowed } from '../../core/addresses.js';
import { optionError } from './errors.js';

export interface NumberRule {
  /** What an absent option means. */
  fallback: number;
  /** The least it may be (inclusive), unless `above` says it must be more than `min`. */
  min: number;
  above?: boolean;
  max?: number;
  integer?: boolean;
  /** What one of it counts, for the message: `milliseconds`, `bytes`, `seconds`, `tries`… */
  unit: string;
}

function expected(rule: NumberRule): string {
  const whole = rule.integer ? 'a whole number' : 'a number';
  const bound = rule.above ? `above ${rule.min}` : rule.max !== undefined ? `from ${rule.min} to ${rule.max}` : `of at least ${rule.min}`;
  return `${whole} of ${rule.unit} ${bound}`;
}

/** A number option: the fallback when absent, else the number given when it keeps the rule. */
export function numberOption(option: string, value: unknown, rule: NumberRule): number {
  if (value === undefined) return rule.fallback;
  const fits =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (rule.above ? value > rule.min : value >= rule.min) &&
    (rule.max === undefined || value <= rule.max) &&
    (!rule.integer || Number.isInteger(value));
  if (!fits) throw optionError(option, expected(rule), value);
  return value as number;
}

/** A hook the kit calls: absent, or a function. */
export function hookOption<T>(option: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== 'function') throw optionError(option, 'a function', value);
  return value;
}

/** A store of the shop's own: it must answer every method the kit calls on it. */
export function storeOption<T extends object>(option: string, value: T, methods: readonly (keyof T & string)[]): T {
  for (const method of methods) {
    if (typeof value?.[method] !== 'function') throw optionError(`${option}.${method}`, 'a function', value?.[method]);
  }
  return value;
}

/** An address the service calls (a callback URL) or that travels payers' secrets: https, or http on a loopback address. */
export function liveUrlOption(option: string, value: unknown): string {
  if (typeof value !== 'string' || !isHttpUrl(value) || !isLiveAddressAllowed(value)) {
    throw optionError(option, 'an absolute https: URL (http: only on a loopback address)', value);
  }
  return value;
}

/** A list of origins (`https://shop.example`, no path). */
export function originsOption(option: string, value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw optionError(option, 'a list of origins', value);
  for (const origin of value) {
    if (typeof origin !== 'string' || !isHttpUrl(origin) || new URL(origin).origin !== origin) {
      throw optionError(`${option}[${value.indexOf(origin)}]`, 'an origin such as https://shop.example (no path)', origin);
    }
  }
  return Object.freeze([...value]);
}

/** The origin browsers reach something at: `https://shop.example` (no path), `http:` only on a loopback address. */
export function originOption(option: string, value: unknown): string {
  if (typeof value !== 'string' || !isHttpUrl(value) || new URL(value).origin !== value || !isLiveAddressAllowed(value)) {
    throw optionError(option, 'an origin such as https://shop.example (no path; http: only on a loopback address)', value);
  }
  return value;
}

/** A yes or no: absent is `fallback`. */
export function booleanOption(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw optionError(option, 'true or false', value);
  return value;
}

/** One of a few words. */
export function choiceOption<T extends string>(option: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !choices.includes(value as T)) throw optionError(option, `one of ${choices.map((choice) => `'${choice}'`).join(', ')}`, value);
  return value as T;
}

/**
 * A folder as a file: URL with its trailing slash, from a URL, a file: URL's text or an absolute path (Windows' too);
 * `false` stays false (none), and nothing given stays undefined (the default). The kit imports no node:url for it.
 */
export function folderOption(option: string, value: unknown): URL | false | undefined {
  if (value === undefined || value === false) return value;
  let url: URL | undefined;
  if (value instanceof URL || (typeof value === 'string' && value.startsWith('file:'))) url = new URL(value);
  else if (typeof value === 'string' && /^[A-Za-z]:[\\/]/.test(value)) url = new URL(`file:///${value.replaceAll('\\', '/')}`);
  else if (typeof value === 'string' && value.startsWith('/')) url = new URL(value, 'file:///');
  if (!url || url.protocol !== 'file:') throw optionError(option, 'false, an absolute path or a file: URL', value);
  return url.href.endsWith('/') ? url : new URL(`${url.href}/`);
}
