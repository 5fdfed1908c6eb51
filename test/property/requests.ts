/**
 * Valid requests of every shape, generated, and what README.md's "Validation decisions" say each field accepts,
 * written out again here as plain predicates so that the validator is checked against the README and not
 * against itself. The property suites start from a valid request and break one thing at a time.
 */
import fc from 'fast-check';
import {
  BANK_ACCOUNT_CREATE,
  CALLBACK_BODY,
  OTP_REQUEST,
  PIN_REQUEST,
  POS_CREATE,
  REFERENCE_CODE,
  REFERENCE_CODE_CREATE,
  REFUND_CREATE,
  REFUND_QUERY,
  RESEND_OTP_REQUEST,
  STATUS_REQUEST,
  type RuleTable,
} from '../../src/core/index.js';
import { hostileCharacter, hostileString, hugeString, numberish } from './support.js';

/** What kind of value a field holds, which decides what counts as a wrong type for it. */
export type FieldKind = 'text' | 'whole-number' | 'date-part' | 'string-map';

export interface FieldSpec {
  kind: FieldKind;
  valid: fc.Arbitrary<unknown>;
  /** Whether a present (not null, not blank) value is accepted, per README.md; absent when not written out here. */
  accepts?: (value: unknown) => boolean;
}

export interface Shape {
  name: string;
  table: RuleTable;
  /** A request every rule accepts. */
  valid: fc.Arbitrary<Record<string, unknown>>;
  /** Leaf fields (dotted) with their specs. */
  fields: Record<string, FieldSpec>;
  /** Create requests go through validateCreateRequest (payMethod picks the table). */
  create?: boolean;
}

// --- What README.md says a field accepts --------------------------------------------------------------------

const trimmed = (value: unknown) => (typeof value === 'string' ? value.trim() : undefined);

/** README: every text field of a request is one line — no control characters, line breaks or bidi overrides. */
const NOT_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function matching(pattern: RegExp, strip?: RegExp): (value: unknown) => boolean {
  return (value) => {
    const text = trimmed(value);
    return text !== undefined && !NOT_ONE_LINE.test(text) && pattern.test(strip ? text.replace(strip, '') : text);
  };
}

function ofLength(max: number): (value: unknown) => boolean {
  return (value) => {
    const text = trimmed(value);
    return text !== undefined && !NOT_ONE_LINE.test(text) && text.length >= 1 && text.length <= max;
  };
}

function wholeNumber(min: number, max: number, digitStrings = false): (value: unknown) => boolean {
  return (value) => {
    let number = value;
    if (digitStrings && typeof value === 'string') {
      if (!/^\d{1,16}$/.test(value.trim())) return false;
      number = Number(value.trim());
    }
    return typeof number === 'number' && Number.isSafeInteger(number) && number >= min && number <= max;
  };
}

function httpUrl(value: unknown): boolean {
  const text = trimmed(value);
  if (text === undefined || text.length > 2048 || /[\u0000-\u0020\u007f]/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const exactly = (values: readonly string[]) => (value: unknown) => typeof value === 'string' && values.includes(value);

export const ACCEPTS = {
  reference: matching(/^[A-Za-z0-9._:-]{1,64}$/),
  currency: matching(/^[A-Z]{3}$/),
  country: matching(/^[A-Z]{2}$/),
  minorUnits: wholeNumber(1, Number.MAX_SAFE_INTEGER),
  minorUnitsOrDigits: wholeNumber(1, Number.MAX_SAFE_INTEGER, true),
  expireAt: wholeNumber(1, 43_200),
  expireAtOrDigits: wholeNumber(1, 43_200, true),
  sn: matching(/^[A-Za-z0-9-]{1,32}$/),
  bankAccountNumber: matching(/^[A-Za-z0-9]{6,34}$/, /\s/g),
  bankCode: matching(/^[A-Za-z0-9]{1,11}$/),
  url: httpUrl,
  email: (value: unknown) => (trimmed(value)?.length ?? 255) <= 254 && matching(/^[^\s@]+@[^\s@]+\.[^\s@]+$/)(value),
  mobile: matching(/^\+?\d{7,15}$/, /[\s().-]/g),
  otp: matching(/^\d{4,8}$/),
  pin: matching(/^\d{4,6}$/),
  personName: ofLength(100),
  productName: ofLength(256),
  productDescription: ofLength(1024),
  notifyLanguage: exactly(['English', 'Arabic']),
  notifyMethod: exactly(['BOTH', 'EMAIL', 'SMS']),
  refundWay: exactly(['Original', 'BankAccount']),
};

// --- Valid values --------------------------------------------------------------------------------------------

/** Free text of 1..max characters after trimming, of any characters that keep it one line. */
const freeText = (max: number) =>
  fc.string({ unit: hostileCharacter, minLength: 1, maxLength: Math.min(max, 120) }).filter((text) => {
    const kept = text.trim();
    return kept.length >= 1 && kept.length <= max && !NOT_ONE_LINE.test(kept);
  });

const reference = fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/);
const currency = fc.stringMatching(/^[A-Z]{3}$/);
const country = fc.stringMatching(/^[A-Z]{2}$/);
const minorUnits = fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }));
const expireAt = fc.integer({ min: 1, max: 43_200 });
const digitsOf = (arbitrary: fc.Arbitrary<number>) => fc.oneof(arbitrary, arbitrary.map(String));
/** Local callbacks only: a test must never make the sandbox post to the internet. */
export const LOCAL_URL = fc
  .tuple(fc.constantFrom('http', 'https'), fc.integer({ min: 1, max: 65_535 }), fc.stringMatching(/^(?:\/[A-Za-z0-9._~-]{0,12}){0,3}$/))
  .map(([scheme, port, path]) => `${scheme}://127.0.0.1:${port}${path}`);
const urlPath = fc.stringMatching(/^(?:\/[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,12}){0,3}(?:\?[A-Za-z0-9=&%]{0,12})?$/);
const url = fc.oneof(
  LOCAL_URL,
  fc.tuple(fc.constantFrom('http', 'https'), fc.stringMatching(/^[a-z][a-z0-9-]{0,20}(?:\.[a-z0-9-]{1,12}){0,2}\.[a-z]{2,6}$/), urlPath)
    .map(([scheme, host, path]) => `${scheme}://${host}${path}`),
);
const mobile = fc
  .tuple(fc.boolean(), fc.stringMatching(/^\d{7,15}$/), fc.array(fc.tuple(fc.nat(), fc.constantFrom(' ', '-', '.', '(', ')')), { maxLength: 3 }))
  .map(([plus, digits, separators]) => {
    let text = digits;
    for (const [at, separator] of separators) {
      const index = 1 + (at % text.length);
      text = `${text.slice(0, index)}${separator}${text.slice(index)}`;
    }
    return `${plus ? '+' : ''}${text}`;
  });
const email = fc.stringMatching(/^[A-Za-z0-9._%+'-]{1,30}@[a-z0-9-]{1,30}(?:\.[a-z0-9-]{1,20}){0,2}\.[a-z]{2,8}$/);
const orderNo = fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/);

/** A date of birth from 1900 to 2020, written in any of the ways the rules accept. */
export const dateOfBirth = fc
  .tuple(
    fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2020-12-31T00:00:00Z'), noInvalidDate: true }),
    fc.constantFrom('padded', 'bare', 'numbers'),
  )
  .map(([date, style]) => {
    const day = date.getUTCDate();
    const month = date.getUTCMonth() + 1;
    const year = date.getUTCFullYear();
    if (style === 'numbers') return { dobDay: day, dobMonth: month, dobYear: String(year) };
    const write = (part: number) => (style === 'padded' ? String(part).padStart(2, '0') : String(part));
    return { dobDay: write(day), dobMonth: write(month), dobYear: String(year) };
  });

// --- Shapes --------------------------------------------------------------------------------------------------

const commonCreateFields = {
  reference: { kind: 'text', valid: reference, accepts: ACCEPTS.reference },
  'amount.total': { kind: 'whole-number', valid: minorUnits, accepts: ACCEPTS.minorUnits },
  'amount.currency': { kind: 'text', valid: currency, accepts: ACCEPTS.currency },
  callbackUrl: { kind: 'text', valid: url, accepts: ACCEPTS.url },
  'product.name': { kind: 'text', valid: freeText(256), accepts: ACCEPTS.productName },
  'product.description': { kind: 'text', valid: freeText(1024), accepts: ACCEPTS.productDescription },
  expireAt: { kind: 'whole-number', valid: expireAt, accepts: ACCEPTS.expireAt },
  country: { kind: 'text', valid: country, accepts: ACCEPTS.country },
  customerName: { kind: 'text', valid: freeText(100), accepts: ACCEPTS.personName },
  userClientIP: { kind: 'text', valid: fc.oneof(fc.ipV4(), fc.ipV6()) },
  userPhone: { kind: 'text', valid: mobile, accepts: ACCEPTS.mobile },
} satisfies Record<string, FieldSpec>;

/** Builds a nested object from dotted paths; paths not in `required` may be left out. */
function shaped(fields: Record<string, FieldSpec>, required: readonly string[]) {
  const parts = Object.fromEntries(Object.entries(fields).map(([path, spec]) => [path, spec.valid]));
  const requiredKeys = Object.keys(fields).filter((path) => required.includes(path));
  return fc.record(parts, { requiredKeys }).map((flat) => nest(flat));
}

/** `{ 'amount.total': 1 }` -> `{ amount: { total: 1 } }`. */
export function nest(flat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(flat)) setPath(out, path, value);
  return out;
}

/** Sets a dotted path, creating objects on the way; `undefined` removes the member. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split('.');
  let container = target;
  for (const segment of segments.slice(0, -1)) {
    const next = container[segment];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) container = next as Record<string, unknown>;
    else container = container[segment] = {};
  }
  const last = segments[segments.length - 1] as string;
  if (value === undefined) delete container[last];
  else container[last] = value;
}

/** A deep copy of a JSON-like request with one path set to `value`. */
export function withField(request: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(request);
  setPath(copy, path, value);
  return copy;
}

const posFields: Record<string, FieldSpec> = {
  ...commonCreateFields,
  payMethod: { kind: 'text', valid: fc.constant('Pos') },
  sn: { kind: 'text', valid: fc.stringMatching(/^[A-Za-z0-9-]{1,32}$/), accepts: ACCEPTS.sn },
};

const bankFields: Record<string, FieldSpec> = {
  ...commonCreateFields,
  payMethod: { kind: 'text', valid: fc.constant('BankAccount') },
  bankAccountNumber: { kind: 'text', valid: fc.stringMatching(/^[A-Za-z0-9]{6,34}$/), accepts: ACCEPTS.bankAccountNumber },
  bankCode: { kind: 'text', valid: fc.stringMatching(/^[A-Za-z0-9]{1,11}$/), accepts: ACCEPTS.bankCode },
  returnUrl: { kind: 'text', valid: url, accepts: ACCEPTS.url },
  dobDay: { kind: 'date-part', valid: fc.constant('05') },
  dobMonth: { kind: 'date-part', valid: fc.constant('01') },
  dobYear: { kind: 'date-part', valid: fc.constant('1990') },
  bvn: { kind: 'text', valid: fc.stringMatching(/^\d{1,32}$/) },
};

const referenceCodeFields: Record<string, FieldSpec> = {
  reference: commonCreateFields.reference,
  merchantName: { kind: 'text', valid: freeText(100), accepts: ACCEPTS.personName },
  'amount.total': { kind: 'whole-number', valid: digitsOf(minorUnits), accepts: ACCEPTS.minorUnitsOrDigits },
  'amount.currency': commonCreateFields['amount.currency'],
  callbackUrl: commonCreateFields.callbackUrl,
  'product.name': commonCreateFields['product.name'],
  'product.description': commonCreateFields['product.description'],
  country: commonCreateFields.country,
  payMethod: { kind: 'text', valid: fc.constant('ReferenceCode') },
  expireAt: { kind: 'whole-number', valid: digitsOf(expireAt), accepts: ACCEPTS.expireAtOrDigits },
  'notify.notifyUserName': { kind: 'text', valid: freeText(100), accepts: ACCEPTS.personName },
  'notify.notifyLanguage': { kind: 'text', valid: fc.constantFrom('English', 'Arabic'), accepts: ACCEPTS.notifyLanguage },
  'notify.notifyMethod': { kind: 'text', valid: fc.constant('BOTH'), accepts: ACCEPTS.notifyMethod },
  'notify.notifyUserEmail': { kind: 'text', valid: email, accepts: ACCEPTS.email },
  'notify.notifyUserMobile': { kind: 'text', valid: mobile, accepts: ACCEPTS.mobile },
  returnUrl: { kind: 'text', valid: url, accepts: ACCEPTS.url },
};

const actionFields = (code?: 'otp' | 'pin'): Record<string, FieldSpec> => ({
  country: commonCreateFields.country,
  orderNo: { kind: 'text', valid: orderNo },
  reference: { kind: 'text', valid: reference },
  ...(code === 'otp' ? { otp: { kind: 'text', valid: fc.stringMatching(/^\d{4,8}$/), accepts: ACCEPTS.otp } } : {}),
  ...(code === 'pin' ? { pin: { kind: 'text', valid: fc.stringMatching(/^\d{4,6}$/), accepts: ACCEPTS.pin } } : {}),
});

/** An action body names its order by orderNo, by reference, or both. */
function actionRequest(fields: Record<string, FieldSpec>, required: string[]) {
  return fc
    .tuple(shaped(fields, [...required, 'orderNo', 'reference']), fc.constantFrom('orderNo', 'reference', 'both'))
    .map(([request, keep]) => {
      if (keep === 'orderNo') delete request['reference'];
      if (keep === 'reference') delete request['orderNo'];
      return request;
    });
}

const anyText = freeText(4096);
const callbackFields: Record<string, FieldSpec> = {
  notifyId: { kind: 'text', valid: anyText },
  reference: { kind: 'text', valid: anyText },
  'amount.total': { kind: 'whole-number', valid: digitsOf(fc.maxSafeNat()), accepts: wholeNumber(0, Number.MAX_SAFE_INTEGER, true) },
  'amount.currency': { kind: 'text', valid: anyText },
  orderNo: { kind: 'text', valid: anyText },
  country: { kind: 'text', valid: anyText },
  status: { kind: 'text', valid: fc.constantFrom('INITIAL', 'PENDING', 'SUCCESS', 'FAIL', 'CLOSE') },
  timestamp: { kind: 'whole-number', valid: digitsOf(fc.maxSafeNat()), accepts: wholeNumber(0, Number.MAX_SAFE_INTEGER, true) },
  type: { kind: 'text', valid: fc.constant('MACQUIRING_CALLBACK') },
  failureCode: { kind: 'text', valid: anyText },
  failureReason: { kind: 'text', valid: anyText },
  extras: { kind: 'string-map', valid: fc.dictionary(hostileString, hostileString, { maxKeys: 4 }) },
};

const refundFields: Record<string, FieldSpec> = {
  'amount.total': commonCreateFields['amount.total'],
  'amount.currency': commonCreateFields['amount.currency'],
  callbackUrl: commonCreateFields.callbackUrl,
  country: commonCreateFields.country,
  originalReference: commonCreateFields.reference,
  reference: commonCreateFields.reference,
  refundWay: { kind: 'text', valid: fc.constantFrom('Original', 'BankAccount'), accepts: ACCEPTS.refundWay },
};

const requiredOf = (table: RuleTable) => Object.entries(table.fields).filter(([, rule]) => rule.required === true).map(([path]) => path);

/** A ReferenceCode notify block whose email and mobile fit its notifyMethod. */
const referenceCodeRequest = fc
  .tuple(shaped(referenceCodeFields, requiredOf(REFERENCE_CODE_CREATE)), fc.constantFrom(undefined, 'BOTH', 'EMAIL', 'SMS'))
  .chain(([request, method]) =>
    fc.tuple(email, mobile).map(([address, phone]) => {
      const notify = { ...(request['notify'] as Record<string, unknown>) };
      if (method === undefined) delete notify['notifyMethod'];
      else notify['notifyMethod'] = method;
      if (method !== 'SMS') notify['notifyUserEmail'] ??= address;
      if (method !== 'EMAIL') notify['notifyUserMobile'] ??= phone;
      return { ...request, notify };
    }),
  );

export const SHAPES: Shape[] = [
  { name: 'Pos create', table: POS_CREATE, create: true, fields: posFields, valid: shaped(posFields, requiredOf(POS_CREATE)) },
  {
    name: 'BankAccount create',
    table: BANK_ACCOUNT_CREATE,
    create: true,
    fields: bankFields,
    valid: fc
      .tuple(shaped(bankFields, requiredOf(BANK_ACCOUNT_CREATE)), dateOfBirth)
      .map(([request, born]) => ({ ...request, ...born })),
  },
  { name: 'ReferenceCode create', table: REFERENCE_CODE_CREATE, create: true, fields: referenceCodeFields, valid: referenceCodeRequest },
  { name: 'OTP', table: OTP_REQUEST, fields: actionFields('otp'), valid: actionRequest(actionFields('otp'), ['country', 'otp']) },
  { name: 'PIN', table: PIN_REQUEST, fields: actionFields('pin'), valid: actionRequest(actionFields('pin'), ['country', 'pin']) },
  { name: 'resend OTP', table: RESEND_OTP_REQUEST, fields: actionFields(), valid: actionRequest(actionFields(), ['country']) },
  { name: 'status', table: STATUS_REQUEST, fields: actionFields(), valid: actionRequest(actionFields(), ['country']) },
  { name: 'refund create', table: REFUND_CREATE, fields: refundFields, valid: shaped(refundFields, requiredOf(REFUND_CREATE)) },
  {
    name: 'refund query',
    table: REFUND_QUERY,
    fields: { reference: commonCreateFields.reference, country: commonCreateFields.country },
    valid: shaped({ reference: commonCreateFields.reference, country: commonCreateFields.country }, ['reference', 'country']),
  },
  { name: 'callback body', table: CALLBACK_BODY, fields: callbackFields, valid: shaped(callbackFields, requiredOf(CALLBACK_BODY)) },
  {
    name: 'reference code',
    table: REFERENCE_CODE,
    fields: { referenceCode: { kind: 'text', valid: fc.stringMatching(/^\d{9}$/), accepts: matching(/^\d{9}$/) } },
    valid: fc.stringMatching(/^\d{9}$/).map((referenceCode) => ({ referenceCode })),
  },
];

export function shapeNamed(name: string): Shape {
  const shape = SHAPES.find((candidate) => candidate.name === name);
  if (!shape) throw new Error(`no shape ${name}`);
  return shape;
}

/** Every field path a violation may name for a table: its fields, their parents, and `body`. */
export function fieldPaths(table: RuleTable): Set<string> {
  const paths = new Set<string>(['body']);
  for (const field of Object.keys(table.fields)) {
    const segments = field.split('.');
    for (let length = 1; length <= segments.length; length++) paths.add(segments.slice(0, length).join('.'));
  }
  return paths;
}

/** The rules README.md and src/core/types.ts name for a violation of the validator. */
export const VALIDATOR_RULES = new Set([
  'required', 'type', 'integer', 'positive', 'min', 'max', 'format', 'enum', 'maxLength', 'minLength', 'url', 'date', 'past', 'unsupported',
  'characters',
]);

// --- Values a field must refuse ----------------------------------------------------------------------------------

const structures = fc.oneof(
  fc.boolean(),
  fc.constantFrom([], ['x'], [1, 2], {}, { a: 1 }, [[[]]], { total: 1 }),
  fc.array(hostileString, { minLength: 1, maxLength: 3 }),
);

/** Values of a type `kind` never accepts. */
export function wrongType(kind: FieldKind): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'text':
      return fc.oneof(structures, numberish.filter((value): value is number => typeof value === 'number'));
    case 'whole-number':
      // Strings that are not digits, whatever the field: no field takes "12a" or "1e3".
      return fc.oneof(structures, hostileString.filter((text) => text.trim() !== '' && !/^\d+$/.test(text.trim())));
    case 'date-part':
      return fc.oneof(structures, fc.constantFrom(0.5, 1e21, -0.25, Number.MAX_SAFE_INTEGER + 2));
    case 'string-map':
      return fc.oneof(
        fc.boolean(),
        fc.constantFrom([], ['x'], 0, 1),
        hostileString.filter((text) => text.trim() !== ''),
        fc.dictionary(hostileString, fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant({})), { minKeys: 1, maxKeys: 3 }),
      );
  }
}

/** `text` cut, or grown with its own characters, to `length`. */
export function resized(text: string, length: number): string {
  return text.repeat(Math.ceil((length + 1) / text.length)).slice(0, length);
}

/** Every length README.md's "Validation decisions" names, with its neighbours. */
export const README_LENGTHS = [2, 3, 4, 6, 7, 8, 9, 11, 15, 16, 32, 34, 64, 100, 254, 256, 1024, 2048].flatMap((length) => [length - 1, length, length + 1]);

/** Values close to `valid` and far from it: the candidates a field's rule must sort correctly. */
export function candidates(spec: FieldSpec): fc.Arbitrary<unknown> {
  // Characters a rule must think about: separators inside a value survive trimming, unlike those at its ends.
  const inside = fc.oneof(hostileCharacter, fc.constantFrom(' ', '\t', '\u00a0', '/', '#', '@', '.', '-', '+', ',', '0', 'a', 'Z'));
  const nearMiss = fc.tuple(spec.valid, inside, fc.nat(), fc.constantFrom('insert', 'insert', 'append', 'pad', 'double', 'case', 'chop', 'string', 'negate', 'half')).map(
    ([value, character, at, how]) => {
      if (typeof value === 'number') {
        if (how === 'string') return ` ${value} `;
        if (how === 'negate') return -value;
        if (how === 'half') return value + 0.5;
        if (how === 'double') return value * 2;
        return value + (at % 3) - 1;
      }
      if (typeof value !== 'string') return value;
      // An inner position when there is one, so that the character is not trimmed away.
      const index = value.length < 2 ? 0 : 1 + (at % (value.length - 1));
      switch (how) {
        case 'insert':
          return `${value.slice(0, index)}${character}${value.slice(index)}`;
        case 'append':
          return `${value}${character}`;
        case 'pad':
          return ` \t${value}\n `;
        case 'double':
          return value.repeat(2 + (at % 40));
        case 'case':
          return value === value.toUpperCase() ? value.toLowerCase() : value.toUpperCase();
        default:
          return value.slice(1);
      }
    },
  );
  // A valid value cut or grown (with its own characters) to another length, or with every copy of one of its
  // characters removed: lengths around a limit and missing separators ("@", ".") come up often.
  const reshaped = spec.valid.chain((text) => {
    if (typeof text !== 'string' || text.length === 0) return fc.constant(text);
    return fc.oneof(
      fc.integer({ min: 0, max: text.length - 1 }).map((at) => text.split(text[at]!).join('')),
      // fast-check favours the ends of a range: short values and long ones.
      fc.integer({ min: 0, max: 2 * text.length + 3 }).map((length) => resized(text, length)),
      fc.integer({ min: -2, max: 2 }).map((change) => text.repeat(2).slice(0, Math.max(0, text.length + change))),
      fc.constantFrom(...README_LENGTHS).map((length) => resized(text, length)),
    );
  });

  return fc.oneof(
    { arbitrary: spec.valid, weight: 3 },
    { arbitrary: nearMiss, weight: 5 },
    { arbitrary: reshaped, weight: 6 },
    { arbitrary: numberish, weight: 2 },
    { arbitrary: hostileString, weight: 2 },
    { arbitrary: fc.constantFrom(null, true, false, [], {}, ['x'], '', '   ', '\u200f', '\u0000'), weight: 2 },
    { arbitrary: hugeString, weight: 1 },
  );
}

/** Absent, null and blank strings all count as not given (README: "A blank optional field counts as absent"). */
export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}
