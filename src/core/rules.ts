/**
 * The field rules: one table per request shape. Each row names a wire field (dotted for nested fields), when
 * it is required, its format and its default. `validate` (validate.ts) reads these tables and nothing else,
 * so the element, the merchant kit and the sandbox accept and refuse exactly the same input (the element checks
 * the payer's rows of a create, PAYER_CREATE_RULES; the kit and the sandbox the whole create).
 *
 * Where the specification is silent (lengths, character sets, ranges) the decisions are ours; README.md lists
 * them under "Validation decisions".
 */
import { datePart, httpUrl, integer, oneOf, stringMap, text, type Format } from './formats.js';
import { anyOf, dateInPast, type GroupRule } from './groups.js';
import { CALLBACK_TYPE, NOTIFY_LANGUAGES, NOTIFY_METHODS, PAYMENT_STATUSES, REFUND_WAYS } from './status.js';

export interface FieldRule {
  /** `true`, or required only when another field holds one of the listed values (its default counts). */
  required: boolean | { when: string; in: readonly string[] };
  format: Format;
  /** Filled in when the field is absent. */
  default?: string | number;
}

/** Rules that concern several fields at once (groups.ts). */
export type { GroupRule } from './groups.js';

export interface RuleTable {
  fields: Readonly<Record<string, FieldRule>>;
  groups?: readonly GroupRule[];
}

// Limits the specification leaves open; see README.md "Validation decisions".
export const LIMITS = {
  referenceLength: 64,
  /** Largest amount in minor units: the largest integer JSON numbers carry exactly. */
  maxMinorUnits: Number.MAX_SAFE_INTEGER,
  /** 30 days. */
  maxExpireMinutes: 43_200,
  defaultExpireMinutes: 30,
  nameLength: 100,
  productNameLength: 256,
  productDescriptionLength: 1024,
  minBirthYear: 1900,
} as const;

export const REFERENCE_CODE_PATTERN = /^\d{9}$/;

/** A merchant id as the service issues it: digits. */
export const MERCHANT_ID_PATTERN = /^\d{1,32}$/;

/** What a merchant's reference (and the service's order number) may hold. */
export const REFERENCE_PATTERN = /^[A-Za-z0-9._:-]+$/;

const reference = text({
  max: LIMITS.referenceLength,
  pattern: REFERENCE_PATTERN,
  expected: `1 to ${LIMITS.referenceLength} letters, digits, ".", "_", ":" or "-"`,
});
const orderNo = text({ max: 64, pattern: REFERENCE_PATTERN, expected: 'letters, digits, ".", "_", ":" or "-"' });
const currency = text({ max: 3, pattern: /^[A-Z]{3}$/, expected: 'three uppercase letters, e.g. EGP' });
const country = text({ max: 2, pattern: /^[A-Z]{2}$/, expected: 'two uppercase letters, e.g. EG' });
const minorUnits = integer({
  min: 1,
  max: LIMITS.maxMinorUnits,
  expected: 'a whole number of minor units greater than 0',
});
const minorUnitsOrDigits = integer({
  min: 1,
  max: LIMITS.maxMinorUnits,
  acceptDigitString: true,
  expected: 'a whole number of minor units greater than 0',
});
const expireMinutes = integer({
  min: 1,
  max: LIMITS.maxExpireMinutes,
  expected: `whole minutes from 1 to ${LIMITS.maxExpireMinutes}`,
});
const expireMinutesOrDigits = integer({
  min: 1,
  max: LIMITS.maxExpireMinutes,
  acceptDigitString: true,
  expected: `whole minutes from 1 to ${LIMITS.maxExpireMinutes}`,
});
const personName = text({ max: LIMITS.nameLength });
const productName = text({ max: LIMITS.productNameLength });
const productDescription = text({ max: LIMITS.productDescriptionLength });
const mobile = text({
  max: 16,
  strip: /[\s().-]/g,
  pattern: /^\+?\d{7,15}$/,
  expected: 'a phone number of 7 to 15 digits, optionally starting with +',
});
const email = text({ max: 254, pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/, expected: 'an email address' });
const ipAddress = text({
  max: 45,
  pattern: /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/,
  expected: 'an IPv4 or IPv6 address',
});
const serialNumber = text({ max: 32, pattern: /^[A-Za-z0-9-]+$/, expected: 'letters, digits or "-"' });
const bankAccountNumber = text({
  max: 34,
  min: 6,
  strip: /\s/g,
  pattern: /^[A-Za-z0-9]+$/,
  expected: '6 to 34 letters or digits',
});
const bankCode = text({ max: 11, pattern: /^[A-Za-z0-9]+$/, expected: '1 to 11 letters or digits' });
const otp = text({ max: 8, min: 4, pattern: /^\d+$/, expected: '4 to 8 digits' });
const pin = text({ max: 6, min: 4, pattern: /^\d+$/, expected: '4 to 6 digits' });
const url = httpUrl();

/** The formats of the order's own fields, for other tables that carry them (the checkout token's claims). */
export const ORDER_FORMATS = {
  reference,
  orderNo,
  currency,
  country,
  minorUnits,
  expireMinutes,
  personName,
  productName,
  productDescription,
  url,
  merchantId: text({ max: 32, pattern: MERCHANT_ID_PATTERN, expected: 'the merchant id the service issued (digits)' }),
} as const;

const dateOfBirth = dateInPast('dobDay', 'dobMonth', 'dobYear', LIMITS.minBirthYear);

/** Fields of every create request (`reference` … `userPhone` in the specification's `Pos` table). */
const CREATE_COMMON: Record<string, FieldRule> = {
  reference: { required: true, format: reference },
  'amount.total': { required: true, format: minorUnits },
  'amount.currency': { required: true, format: currency },
  callbackUrl: { required: false, format: url },
  'product.name': { required: true, format: productName },
  'product.description': { required: false, format: productDescription },
  expireAt: { required: false, format: expireMinutes, default: LIMITS.defaultExpireMinutes },
  country: { required: false, format: country },
  customerName: { required: false, format: personName },
  userClientIP: { required: false, format: ipAddress },
  userPhone: { required: false, format: mobile },
};

/**
 * The payer's own rows of each method's create: what the payer types in the form (src/checkout's fields), checked in
 * the browser as they type and again by the kit. The element bundles only these: the rest of a create (the merchant's
 * rows: reference, amount, country, product, expiry, callback…) is decided and checked by the kit, when it signs the
 * checkout token and again at every create, and by the sandbox (docs/element.md, "A misconfigured attribute").
 */
const POS_PAYER: RuleTable = { fields: { sn: { required: true, format: serialNumber } } };

/**
 * The payer's own bank account details, rows of the bank account create: also the whole table the isolated frame
 * checks them by (src/isolated-fields), where the rest of the create is not typed.
 */
export const BANK_ACCOUNT_DETAILS: RuleTable = {
  fields: {
    bankAccountNumber: { required: true, format: bankAccountNumber },
    bankCode: { required: true, format: bankCode },
    dobDay: { required: true, format: datePart(2, 'day') },
    dobMonth: { required: true, format: datePart(2, 'month') },
    dobYear: { required: true, format: datePart(4, 'year') },
  },
  groups: [dateOfBirth],
};

const emailChannels = ['BOTH', 'EMAIL'] as const;
const smsChannels = ['BOTH', 'SMS'] as const;

const REFERENCE_CODE_PAYER: RuleTable = {
  fields: {
    'notify.notifyUserName': { required: true, format: personName },
    'notify.notifyLanguage': { required: true, format: oneOf(NOTIFY_LANGUAGES) },
    'notify.notifyMethod': { required: false, format: oneOf(NOTIFY_METHODS), default: 'BOTH' },
    'notify.notifyUserEmail': { required: { when: 'notify.notifyMethod', in: emailChannels }, format: email },
    'notify.notifyUserMobile': { required: { when: 'notify.notifyMethod', in: smsChannels }, format: mobile },
  },
};

/** The payer's rows of the create, per `payMethod`: the only create rows the element checks (and bundles). */
export const PAYER_CREATE_RULES = {
  Pos: POS_PAYER,
  BankAccount: BANK_ACCOUNT_DETAILS,
  ReferenceCode: REFERENCE_CODE_PAYER,
} as const;

/**
 * A whole create table: the merchant's rows, the payer's rows of the method, then the merchant's rows after them (in
 * the order violations are reported). Built by a call the bundler may drop, so the element keeps the payer's rows only.
 */
/* @__NO_SIDE_EFFECTS__ */ function createTable(merchant: Record<string, FieldRule>, payer: RuleTable, after: Record<string, FieldRule> = {}): RuleTable {
  return { fields: { ...merchant, ...payer.fields, ...after }, ...(payer.groups ? { groups: payer.groups } : {}) };
}

export const POS_CREATE: RuleTable = createTable(
  { ...CREATE_COMMON, payMethod: { required: true, format: oneOf(['Pos']) } },
  POS_PAYER,
);

export const BANK_ACCOUNT_CREATE: RuleTable = createTable(
  {
    ...CREATE_COMMON,
    payMethod: { required: true, format: oneOf(['BankAccount']) },
  },
  BANK_ACCOUNT_DETAILS,
  {
    returnUrl: { required: true, format: url },
    bvn: { required: false, format: text({ max: 32, pattern: /^\d+$/, expected: 'digits' }) },
  },
);

export const REFERENCE_CODE_CREATE: RuleTable = createTable(
  {
    reference: { required: true, format: reference },
    merchantName: { required: false, format: personName },
    'amount.total': { required: true, format: minorUnitsOrDigits },
    'amount.currency': { required: true, format: currency },
    callbackUrl: { required: false, format: url },
    'product.name': { required: true, format: productName },
    'product.description': { required: true, format: productDescription },
    country: { required: true, format: country },
    payMethod: { required: true, format: oneOf(['ReferenceCode']) },
    expireAt: { required: false, format: expireMinutesOrDigits, default: LIMITS.defaultExpireMinutes },
  },
  REFERENCE_CODE_PAYER,
  { returnUrl: { required: false, format: url } },
);

const orderOrReference = anyOf(['orderNo', 'reference']);

/**
 * The payer's own row of each code step (the code typed at an OTP or PIN step): what the element checks before it
 * sends a code, in the page or in the isolated frame, and the row the kit's whole requests below carry. The rest of
 * those requests (the order's country, number, reference) is the order's, which the kit told the element.
 */
export const PAYER_CODE_RULES = {
  INPUT_OTP: { fields: { otp: { required: true, format: otp } } },
  INPUT_PIN: { fields: { pin: { required: true, format: pin } } },
} as const satisfies Record<string, RuleTable>;

/** The order's rows of a code request, before the payer's code: built by a call the bundler may drop. */
/* @__NO_SIDE_EFFECTS__ */ function codeTable(payer: RuleTable): RuleTable {
  return {
    fields: {
      country: { required: true, format: country },
      orderNo: { required: false, format: orderNo },
      reference: { required: false, format: reference },
      ...payer.fields,
    },
    groups: [orderOrReference],
  };
}

export const OTP_REQUEST: RuleTable = codeTable(PAYER_CODE_RULES.INPUT_OTP);

export const PIN_REQUEST: RuleTable = codeTable(PAYER_CODE_RULES.INPUT_PIN);

export const RESEND_OTP_REQUEST: RuleTable = {
  fields: {
    country: { required: true, format: country },
    orderNo: { required: false, format: orderNo },
    reference: { required: false, format: reference },
  },
  groups: [orderOrReference],
};

export const STATUS_REQUEST: RuleTable = {
  fields: {
    country: { required: true, format: country },
    reference: { required: false, format: reference },
    orderNo: { required: false, format: orderNo },
  },
  groups: [orderOrReference],
};

export const REFUND_CREATE: RuleTable = {
  fields: {
    'amount.total': { required: true, format: minorUnits },
    'amount.currency': { required: true, format: currency },
    callbackUrl: { required: false, format: url },
    country: { required: true, format: country },
    originalReference: { required: true, format: reference },
    reference: { required: true, format: reference },
    refundWay: { required: true, format: oneOf(REFUND_WAYS) },
  },
};

export const REFUND_QUERY: RuleTable = {
  fields: {
    reference: { required: true, format: reference },
    country: { required: true, format: country },
  },
};

/**
 * What a merchant's callback endpoint accepts once the signature checked out: the specification's required
 * fields and their types, and none of the limits we chose for requests (a signed callback refused for a
 * length we invented would be retried for 72 hours, then lost).
 */
const anyText = text({ max: 4096, singleLine: false });
const wholeNumberOrDigits = integer({
  min: 0,
  max: Number.MAX_SAFE_INTEGER,
  acceptDigitString: true,
  expected: 'a whole number (or a string of digits)',
});

export const CALLBACK_BODY: RuleTable = {
  fields: {
    notifyId: { required: true, format: anyText },
    reference: { required: true, format: anyText },
    'amount.total': { required: true, format: wholeNumberOrDigits },
    'amount.currency': { required: true, format: anyText },
    orderNo: { required: true, format: anyText },
    country: { required: true, format: anyText },
    status: { required: true, format: oneOf(PAYMENT_STATUSES) },
    timestamp: { required: true, format: wholeNumberOrDigits },
    type: { required: true, format: oneOf([CALLBACK_TYPE]) },
    failureCode: { required: false, format: anyText },
    failureReason: { required: false, format: anyText },
    extras: { required: false, format: stringMap() },
  },
};

/** A nine-digit reference code, as the service generates it and the payer types it. */
export const REFERENCE_CODE: RuleTable = {
  fields: {
    referenceCode: {
      required: true,
      format: text({ max: 9, pattern: REFERENCE_CODE_PATTERN, expected: 'exactly 9 digits' }),
    },
  },
};

/**
 * What the payer adds to an order the merchant's server decided, per method: the wire fields the kit takes
 * from the browser. Everything else of a create (reference, amount, country, product, expiry, merchant name,
 * callback URL) comes from the checkout token. `returnUrl` is the payer's page; the kit checks its origin.
 */
/**
 * What the element adds to a create after the payer chose "Use another method" on an order still pending: `true`
 * lets the kit make the next attempt of the checkout although that order may yet be paid. Never sent to the service.
 */
export const LEAVING_FIELD = 'leaving';

/**
 * What the kit adds to the callback address of each attempt it makes (`…/callbacks?checkout=cart-42&attempt=2`), so
 * that a callback says which checkout and attempt its order is, with nothing kept by the kit. Checked against the
 * signed body's reference before it is believed.
 */
export const CALLBACK_CHECKOUT_QUERY = { checkout: 'checkout', attempt: 'attempt' } as const;

export const PAYER_FIELDS = {
  Pos: ['sn', 'customerName', 'userPhone'],
  BankAccount: ['bankAccountNumber', 'bankCode', 'dobDay', 'dobMonth', 'dobYear', 'bvn', 'returnUrl', 'customerName', 'userPhone'],
  ReferenceCode: ['notify'],
} as const satisfies Record<'Pos' | 'BankAccount' | 'ReferenceCode', readonly string[]>;

/** The create table for each `payMethod`. */
export const CREATE_RULES = {
  Pos: POS_CREATE,
  BankAccount: BANK_ACCOUNT_CREATE,
  ReferenceCode: REFERENCE_CODE_CREATE,
} as const;
