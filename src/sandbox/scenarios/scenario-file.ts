/**
 * Scenarios as data: the sandbox's merchants, test values and VAT rates from a JSON file (`--scenarios`, or
 * `--config`, which reads the same format) or from `createSandbox({ scenarios })`. A file changes the defaults
 * of test-values.ts key by key: an entry adds to them or replaces the entry of the same key, `null` removes one.
 * Every problem names the key, and in a file its line and column.
 */
import { BANK_ACCOUNT_CREATE, isPlainObject, OTP_REQUEST, ORDER_FORMATS, PIN_REQUEST, type Format } from '../../core/index.js';
import { MERCHANT_KEYS, resolveMerchant, SandboxConfigError, type ResolvedMerchant, type SandboxMerchant } from '../config.js';
import { JsonSyntaxError, parseLocatedJson } from './json-locations.js';
import {
  DEFAULT_SCENARIOS,
  FAILURES,
  type BankAccountScenario,
  type RefundScenario,
  type Scenarios,
} from './test-values.js';

/** A bank account's behaviour as a file writes it. */
export interface BankAccountInput {
  nextAction?: 'INPUT_OTP' | 'INPUT_PIN' | 'REDIRECT_3DS';
  outcome?: 'SUCCESS' | 'FAIL';
  failureCode?: string;
  failureReason?: string;
  checksDateOfBirth?: boolean;
  /** Fails at create with the failure, asking for nothing. */
  failsAtCreate?: boolean;
}

export interface RefundAmountInput {
  outcome: 'SUCCESS' | 'FAIL';
  errorCode?: string;
  errorMsg?: string;
  afterMinutes?: number;
}

/** The file's format; every key is optional. */
export interface ScenariosInput {
  merchants?: SandboxMerchant[];
  otp?: string;
  pin?: string;
  /** `YYYY-MM-DD`: the date of birth the accounts that check it expect. */
  dateOfBirth?: string;
  bankCode?: string;
  bankAccounts?: Record<string, BankAccountInput | null>;
  /** Percent, per country code. */
  vatRates?: Record<string, number | null>;
  /** By amount in minor units. */
  refundAmounts?: Record<string, RefundAmountInput | null>;
}

export interface SandboxFile {
  merchants?: ResolvedMerchant[];
  scenarios: Scenarios;
}

const TOP_KEYS = ['merchants', 'otp', 'pin', 'dateOfBirth', 'bankCode', 'bankAccounts', 'vatRates', 'refundAmounts'] as const;
const BANK_ACCOUNT_KEYS = ['nextAction', 'outcome', 'failureCode', 'failureReason', 'checksDateOfBirth', 'failsAtCreate'] as const;
const REFUND_KEYS = ['outcome', 'errorCode', 'errorMsg', 'afterMinutes'] as const;
const NEXT_ACTIONS = ['INPUT_OTP', 'INPUT_PIN', 'REDIRECT_3DS'] as const;
const MAX_MINUTES = 5_256_000;

type Path = (string | number)[];

/** `bankAccounts.2215381176.outcome`, `merchants[0].methods`. */
export function keyName(path: readonly (string | number)[]): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

const problem = (path: Path, message: string) => new SandboxConfigError(`${keyName(path)} ${message}`, path);

function objectAt(value: unknown, path: Path): Record<string, unknown> {
  if (!isPlainObject(value)) throw problem(path, 'must be an object');
  return value;
}

function onlyKeys(object: Record<string, unknown>, known: readonly string[], path: Path): void {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) {
      const where = path.length > 0 ? ` in ${keyName(path)}` : '';
      throw new SandboxConfigError(`unknown key "${key}"${where}; known keys: ${known.join(', ')}`, [...path, key]);
    }
  }
}

function formatted(format: Format | undefined, value: unknown, path: Path): string {
  const checked = format?.(value, keyName(path));
  if (!checked?.ok) throw new SandboxConfigError(checked?.message ?? `${keyName(path)} is not valid`, path);
  return checked.value as string;
}

function textAt(value: unknown, path: Path, max = 256): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) throw problem(path, `must be text of 1 to ${max} characters`);
  return value;
}

function oneOfAt<T extends string>(value: unknown, values: readonly T[], path: Path): T {
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) throw problem(path, `must be one of ${values.join(', ')}`);
  return value as T;
}

function booleanAt(value: unknown, path: Path): boolean {
  if (typeof value !== 'boolean') throw problem(path, 'must be true or false');
  return value;
}

function minutesAt(value: unknown, path: Path): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_MINUTES) {
    throw problem(path, `must be a number of minutes from 0 to ${MAX_MINUTES} (ten years)`);
  }
  return value;
}

/** Applies `entries` (null removes) over `defaults`, each entry checked by `read`. */
function mergeTable<T>(
  defaults: Readonly<Record<string, T>>,
  input: unknown,
  path: Path,
  checkKey: (key: string, path: Path) => void,
  read: (value: unknown, path: Path) => T,
): Record<string, T> {
  const merged: Record<string, T> = { ...defaults };
  for (const [key, value] of Object.entries(objectAt(input, path))) {
    checkKey(key, [...path, key]);
    if (value === null) delete merged[key];
    else merged[key] = read(value, [...path, key]);
  }
  return merged;
}

function readBankAccount(value: unknown, path: Path): BankAccountScenario {
  const entry = objectAt(value, path);
  onlyKeys(entry, BANK_ACCOUNT_KEYS, path);
  const nextAction = entry['nextAction'] === undefined ? 'INPUT_OTP' : oneOfAt(entry['nextAction'], NEXT_ACTIONS, [...path, 'nextAction']);
  const outcome = entry['outcome'] === undefined ? 'SUCCESS' : oneOfAt(entry['outcome'], ['SUCCESS', 'FAIL'] as const, [...path, 'outcome']);
  const failsAtCreate = entry['failsAtCreate'] === undefined ? false : booleanAt(entry['failsAtCreate'], [...path, 'failsAtCreate']);
  const failing = outcome === 'FAIL' || failsAtCreate;
  for (const field of ['failureCode', 'failureReason'] as const) {
    if (entry[field] !== undefined && !failing) throw problem([...path, field], 'is only for an account whose outcome is FAIL or that failsAtCreate');
  }
  const fallback = failsAtCreate ? FAILURES.accountBlocked : FAILURES.failedByTest;
  const failure = {
    failureCode: entry['failureCode'] === undefined ? fallback.failureCode : textAt(entry['failureCode'], [...path, 'failureCode'], 64),
    failureReason: entry['failureReason'] === undefined ? fallback.failureReason : textAt(entry['failureReason'], [...path, 'failureReason']),
  };
  return {
    nextAction,
    outcome: outcome === 'FAIL' && !failsAtCreate ? failure : 'success',
    checksDateOfBirth: entry['checksDateOfBirth'] === undefined ? true : booleanAt(entry['checksDateOfBirth'], [...path, 'checksDateOfBirth']),
    ...(failsAtCreate ? { failsAtCreate: failure } : {}),
  };
}

function readRefundAmount(value: unknown, path: Path): RefundScenario {
  const entry = objectAt(value, path);
  onlyKeys(entry, REFUND_KEYS, path);
  const outcome = oneOfAt(entry['outcome'], ['SUCCESS', 'FAIL'] as const, [...path, 'outcome']);
  for (const field of ['errorCode', 'errorMsg'] as const) {
    if (entry[field] !== undefined && outcome !== 'FAIL') throw problem([...path, field], 'is only for a refund whose outcome is FAIL');
  }
  return {
    outcome,
    ...(outcome === 'FAIL'
      ? {
          errorCode: entry['errorCode'] === undefined ? 'REFUND_REJECTED' : textAt(entry['errorCode'], [...path, 'errorCode'], 64),
          errorMsg: entry['errorMsg'] === undefined ? 'The refund was rejected by the bank.' : textAt(entry['errorMsg'], [...path, 'errorMsg']),
        }
      : {}),
    ...(entry['afterMinutes'] !== undefined ? { afterMinutes: minutesAt(entry['afterMinutes'], [...path, 'afterMinutes']) } : {}),
  };
}

function readDateOfBirth(value: unknown, path: Path): Scenarios['dateOfBirth'] {
  const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : undefined;
  if (!match || !date || date.toISOString().slice(0, 10) !== value) throw problem(path, 'must be a date written YYYY-MM-DD');
  return { dobYear: match[1] as string, dobMonth: match[2] as string, dobDay: match[3] as string };
}

/** Checks a parsed scenarios document (the file's JSON, or `createSandbox`'s `scenarios`). */
export function readSandboxFile(input: unknown): SandboxFile {
  // A bare list is the merchants alone, as --config has always taken.
  const document = Array.isArray(input) ? { merchants: input } : objectAt(input, []);
  onlyKeys(document, TOP_KEYS, []);
  const defaults = DEFAULT_SCENARIOS;
  const at = (key: string): Path => [key];
  const scenarios: Scenarios = {
    otp: document['otp'] === undefined ? defaults.otp : formatted(OTP_REQUEST.fields['otp']?.format, document['otp'], at('otp')),
    pin: document['pin'] === undefined ? defaults.pin : formatted(PIN_REQUEST.fields['pin']?.format, document['pin'], at('pin')),
    dateOfBirth: document['dateOfBirth'] === undefined ? defaults.dateOfBirth : readDateOfBirth(document['dateOfBirth'], at('dateOfBirth')),
    bankCode:
      document['bankCode'] === undefined ? defaults.bankCode : formatted(BANK_ACCOUNT_CREATE.fields['bankCode']?.format, document['bankCode'], at('bankCode')),
    bankAccounts:
      document['bankAccounts'] === undefined
        ? defaults.bankAccounts
        : mergeTable(
            defaults.bankAccounts,
            document['bankAccounts'],
            at('bankAccounts'),
            (key, path) => void formatted(BANK_ACCOUNT_CREATE.fields['bankAccountNumber']?.format, key, path),
            readBankAccount,
          ),
    vatRates:
      document['vatRates'] === undefined
        ? defaults.vatRates
        : mergeTable(
            defaults.vatRates,
            document['vatRates'],
            at('vatRates'),
            (key, path) => void formatted(ORDER_FORMATS.country, key, path),
            (value, path) => {
              if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value >= 100) throw problem(path, 'must be a percentage from 0 to under 100');
              return value;
            },
          ),
    refundAmounts:
      document['refundAmounts'] === undefined
        ? defaults.refundAmounts
        : mergeTable(
            defaults.refundAmounts,
            document['refundAmounts'],
            at('refundAmounts'),
            (key, path) => {
              if (!/^[1-9]\d{0,15}$/.test(key)) throw problem(path, 'must be an amount in minor units (a whole number greater than 0)');
            },
            readRefundAmount,
          ),
  };
  const list = document['merchants'];
  if (list === undefined) return { scenarios };
  if (!Array.isArray(list) || list.length === 0) throw problem(at('merchants'), 'must be a non-empty list');
  const merchants = list.map((entry, index) => {
    if (isPlainObject(entry)) onlyKeys(entry, MERCHANT_KEYS, ['merchants', index]);
    return resolveMerchant(entry, keyName(['merchants', index]), ['merchants', index]);
  });
  const seen = new Map<string, number>();
  merchants.forEach((merchant, index) => {
    const first = seen.get(merchant.merchantId);
    if (first !== undefined) {
      throw problem(['merchants', index, 'merchantId'], `${merchant.merchantId} is already the merchantId of merchants[${first}]`);
    }
    seen.set(merchant.merchantId, index);
  });
  return { merchants, scenarios };
}

/** Reads a scenarios file's text; an error starts with `file:line:column:`. `document` is the file as `createSandbox` takes it. */
export function parseSandboxFile(text: string, file: string): SandboxFile & { document: ScenariosInput } {
  let located;
  try {
    located = parseLocatedJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      throw new SandboxConfigError(`${file}:${error.location.line}:${error.location.column}: not JSON: ${error.message.replace(/^line \d+, column \d+: /, '')}`);
    }
    throw error;
  }
  try {
    const read = readSandboxFile(located.value);
    const document = (Array.isArray(located.value) ? { merchants: located.value } : located.value) as ScenariosInput;
    return { ...read, document };
  } catch (error) {
    if (!(error instanceof SandboxConfigError)) throw error;
    const { line, column } = located.locate(error.path);
    throw new SandboxConfigError(`${file}:${line}:${column}: ${error.message}`, error.path);
  }
}

/** Reads `{ "merchants": [...] }` (or a bare list) from the text of a config file. */
export function parseMerchantsFile(text: string, file: string): ResolvedMerchant[] {
  const parsed = parseSandboxFile(text, file);
  if (!parsed.merchants) throw new SandboxConfigError(`${file} must hold a non-empty "merchants" list`);
  return parsed.merchants;
}
