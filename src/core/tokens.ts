/**
 * The two proofs the browser carries (DESIGN.md §3), as data: the checkout token, in which the merchant's
 * server fixes an order before the page shows it, and the order token, which the merchant kit hands back for
 * the order a create made. Both are `<kind>.<payload>.<tag>`: the payload is the claims as canonical JSON
 * with short keys, base64url; the tag is an HMAC the kit computes with a key derived from the merchant's
 * private key for this purpose only (src/server/tokens/tokens.ts). Here they are only read: the element shows what a
 * checkout token says, and the kit checks the tag before it believes any of it.
 */
import { integer, type Format } from './formats.js';
import { canonicalJson } from './json.js';
import { LIMITS, ORDER_FORMATS, type RuleTable } from './rules.js';
import { isPayMethod, PAY_METHODS, type PayMethod } from './pay-methods.js';
import type { Amount, Violation } from './types.js';
import { validate, type Validation } from './validate.js';
import { CONTACT_KEYS, CONTACT_ON_FILE } from './contact-claims.js';
import { base64UrlEncode, CHECKOUT_KEYS, DEFAULT_ATTEMPTS, MAX_ATTEMPTS, readTokenPayload, TICKET_KEYS, uncheckedCheckoutClaims, type TokenKind, type TokenRefusal } from './token-wire.js';

export { CONTACT_KEYS, CONTACT_LETTERS, contactOnFile, typedContact } from './contact-claims.js';
export {
  base64UrlBytes,
  base64UrlEncode,
  DEFAULT_ATTEMPTS,
  DEFAULT_CHECKOUT_TOKEN_SECONDS,
  MAX_ATTEMPTS,
  MAX_CHECKOUT_TOKEN_SECONDS,
  readTokenPayload,
  shownPaymentOf,
  TICKET_KEYS,
  TOKEN_KINDS,
  uncheckedCheckoutClaims,
  type ShownPayment,
  type TokenKind,
  type TokenRefusal,
} from './token-wire.js';

type Holds<T extends true> = T;
/**
 * Compiles only when every claim below is read from the wire (uncheckedCheckoutClaims, token-wire.ts, and the payer's
 * sealed contact, contact-claims.ts), and no other.
 */
type WireClaims = keyof ReturnType<typeof uncheckedCheckoutClaims> | keyof typeof CONTACT_KEYS;
export type ClaimsReadFromWire = Holds<
  [keyof CheckoutTokenClaims] extends [WireClaims]
    ? [WireClaims] extends [keyof CheckoutTokenClaims]
      ? true
      : false
    : false
>;

/** What the merchant's server decides about an order; the browser may add only the payer's part. */
export interface CheckoutTokenClaims {
  merchantId: string;
  reference: string;
  amount: Amount;
  country: string;
  product: { name: string; description?: string };
  /** The methods offered, in order; all when absent. */
  methods?: PayMethod[];
  /** Minutes before each order expires; the service's default (30) when absent. */
  expireAt?: number;
  /** Shown to the payer and sent with reference code orders (it appears in the SMS and email). */
  merchantName?: string;
  /** Where the service sends this order's callbacks; the kit's own `callbackUrl` option otherwise. */
  callbackUrl?: string;
  /** Where the bank returns the payer after 3-D Secure; otherwise a page of the shop's own origin. */
  returnUrl?: string;
  /** How many orders the payer may start for this reference: the first, then `--2` … (default 10). */
  attempts?: number;
  /** The attempt the page starts at (1 when absent), as the kit found the checkout when it issued the token. */
  attempt?: number;
  /**
   * That attempt's order exists (in progress, or paid): the page finds it before it offers a form. The order's
   * reference instead of `true` when it is not the attempt's own (an attempt made before the kit kept its attempts
   * apart, `<cart>-2`): the page looks it up by it, and the token covers it.
   */
  started?: boolean | string;
  /** The order is paid in the sandbox: the element shows its "Test mode" badge (the kit's `checkoutToken` sets it). */
  sandbox?: boolean;
  /**
   * The payer's contact the shop knows (a payment link's `payer`), sealed with AES-GCM under a key of the kit's alone:
   * the page carries it, never reads it; the kit fills a reference code's notice from it (src/core/contact-claims.ts).
   */
  payerContact?: string;
  /** Which of the notice's fields `payerContact` holds: `n` the name, `e` the email, `m` the mobile number. */
  contactOnFile?: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds; the token is refused after it. */
  expiresAt: number;
}

/** The order a create made, as the kit vouches for it to the page that made it. */
export interface OrderTokenClaims {
  merchantId: string;
  orderNo: string;
  reference: string;
  country: string;
  /** Unix seconds. */
  expiresAt: number;
  /**
   * Seconds the service's clock was ahead of the kit's (negative: behind) when the order was made, from the
   * `Date` of the service's answers; absent when none was dated. It moves the order's deadline with the service's clock.
   */
  clockOffset?: number | undefined;
}

/**
 * A ticket (`MERCHANT_PATHS.ticket`): the kit's word that it decided the order kept under `id` (its `authorize` hook
 * ran, with the payer's session), for this amount, until `expiresAt`. The order itself stays in the kit's ticket
 * store, used once; the ticket carries only what the isolated frame shows the payer and what finds the order.
 */
export interface TicketClaims {
  merchantId: string;
  /** 128 random bits, base64url: the key of the kept order. */
  id: string;
  amount: Amount;
  merchantName?: string | undefined;
  /** Unix seconds. */
  expiresAt: number;
}

/** How long a ticket is good for: a payer typing their bank details, and the create after it. */
export const TICKET_SECONDS = 900;

const ORDER_KEYS = { merchantId: 'mid', orderNo: 'ono', reference: 'ref', country: 'cty', expiresAt: 'exp', clockOffset: 'off' } as const;

/** The farthest apart the kit and the service's clocks may be, in seconds, for the order token (ten years). */
const CLOCK_OFFSET_LIMIT = 315_360_000;
const seconds = integer({ min: 0, max: 253_402_300_799, expected: 'unix seconds' });

const flag: Format = (value, field) => (typeof value === 'boolean' ? { ok: true, value } : { ok: false, rule: 'type', message: `${field} must be true or false` });
const flagOrReference: Format = (value, field) => (typeof value === 'string' ? ORDER_FORMATS.reference(value, field) : flag(value, field));

const methodList: Format = (value, field) => {
  if (!Array.isArray(value) || value.length === 0 || !value.every(isPayMethod) || new Set(value).size !== value.length) {
    return { ok: false, rule: 'enum', message: `${field} must be a list of distinct methods out of ${PAY_METHODS.join(', ')}` };
  }
  return { ok: true, value: [...value] };
};

const f = ORDER_FORMATS;

/** A sealed value: base64url, no longer than a contact's fields sealed need (the token travels in every call's header). */
const sealedText: Format = (value, field) =>
  typeof value === 'string' && /^[\w-]{40,1024}$/.test(value) ? { ok: true, value } : { ok: false, rule: 'format', message: `${field} must be a sealed value the kit made` };
const lettersOnFile: Format = (value, field) =>
  typeof value === 'string' && value !== '' && CONTACT_ON_FILE.test(value) ? { ok: true, value } : { ok: false, rule: 'format', message: `${field} must be letters out of n, e, m` };

/**
 * The references of a checkout's attempts (docs/one-payment.md): the first is the checkout's own (the cart's id), the
 * next ones `<cart>--2`, `<cart>--3`, … A reference that ends in two hyphens and a number is the kit's: a checkout's
 * own reference never does, and is at most `CHECKOUT_REFERENCE_LENGTH` characters, so that no reference a shop can open
 * is another checkout's attempt, and no attempt's reference is ever cut.
 */
export const ATTEMPT_SEPARATOR = '--';
export const RESERVED_REFERENCE = /--\d+$/;
/** 64, less the separator and two digits (`MAX_ATTEMPTS` is 99). */
export const CHECKOUT_REFERENCE_LENGTH = LIMITS.referenceLength - ATTEMPT_SEPARATOR.length - String(MAX_ATTEMPTS).length;


/** The rules a checkout token's claims follow: the create request's own formats. */
export const CHECKOUT_TOKEN_CLAIMS: RuleTable = {
  fields: {
    merchantId: { required: true, format: f.merchantId },
    reference: { required: true, format: f.reference },
    'amount.total': { required: true, format: f.minorUnits },
    'amount.currency': { required: true, format: f.currency },
    country: { required: true, format: f.country },
    'product.name': { required: true, format: f.productName },
    'product.description': { required: false, format: f.productDescription },
    methods: { required: false, format: methodList },
    expireAt: { required: false, format: f.expireMinutes },
    merchantName: { required: false, format: f.personName },
    callbackUrl: { required: false, format: f.url },
    returnUrl: { required: false, format: f.url },
    attempts: { required: false, format: integer({ min: 1, max: MAX_ATTEMPTS, expected: `a whole number from 1 to ${MAX_ATTEMPTS}` }) },
    attempt: { required: false, format: integer({ min: 1, max: MAX_ATTEMPTS, expected: `a whole number from 1 to ${MAX_ATTEMPTS}` }) },
    started: { required: false, format: flagOrReference },
    sandbox: { required: false, format: flag },
    payerContact: { required: false, format: sealedText },
    contactOnFile: { required: false, format: lettersOnFile },
    issuedAt: { required: true, format: seconds },
    expiresAt: { required: true, format: seconds },
  },
};

const ORDER_TOKEN_CLAIMS: RuleTable = {
  fields: {
    merchantId: { required: true, format: f.merchantId },
    orderNo: { required: true, format: f.orderNo },
    reference: { required: true, format: f.reference },
    country: { required: true, format: f.country },
    expiresAt: { required: true, format: seconds },
    clockOffset: { required: false, format: integer({ min: -CLOCK_OFFSET_LIMIT, max: CLOCK_OFFSET_LIMIT, expected: 'seconds between two clocks' }) },
  },
};

const TICKET_CLAIMS: RuleTable = {
  fields: {
    merchantId: { required: true, format: f.merchantId },
    id: { required: true, format: (value, field) => (typeof value === 'string' && /^[\w-]{22}$/.test(value) ? { ok: true, value } : { ok: false, rule: 'format', message: `${field} must be 22 base64url characters` }) },
    'amount.total': { required: true, format: f.minorUnits },
    'amount.currency': { required: true, format: f.currency },
    merchantName: { required: false, format: f.personName },
    expiresAt: { required: true, format: seconds },
  },
};

export function validateCheckoutClaims(input: unknown): Validation<CheckoutTokenClaims> {
  const checked = validate<CheckoutTokenClaims>(CHECKOUT_TOKEN_CLAIMS, input);
  const attempts = checked.ok ? (checked.value.attempts ?? DEFAULT_ATTEMPTS) : 0;
  if (checked.ok && (checked.value.attempt ?? 1) > attempts) {
    return { ok: false, violations: [{ field: 'attempt', rule: 'max', message: `attempt must be at most attempts (${attempts})` }] };
  }
  return checked;
}

export function attemptReference(base: string, attempt: number): string {
  return attempt <= 1 ? base : `${base}${ATTEMPT_SEPARATOR}${attempt}`;
}

/** Which attempt of `base` a reference is (1 for the base itself), or undefined when it is none of them. */
export function attemptOf(base: string, reference: string, attempts = DEFAULT_ATTEMPTS): number | undefined {
  if (reference === base) return 1;
  if (!reference.startsWith(base + ATTEMPT_SEPARATOR)) return undefined;
  const digits = reference.slice(base.length + ATTEMPT_SEPARATOR.length);
  const attempt = /^[1-9]\d?$/.test(digits) ? Number(digits) : Number.NaN;
  return attempt >= 2 && attempt <= attempts ? attempt : undefined;
}

/** The checkout and attempt a reference of the kit names: `{ base, attempt }` (attempt 1: the reference itself). */
export function checkoutOfReference(reference: string): { base: string; attempt: number } {
  const match = RESERVED_REFERENCE.exec(reference);
  if (!match) return { base: reference, attempt: 1 };
  return { base: reference.slice(0, match.index), attempt: Number(match[0].slice(ATTEMPT_SEPARATOR.length)) };
}

/**
 * The reference attempt n (2 and after) of a checkout had before the kit kept its attempts apart (`<cart>-2`, cut to
 * 64 characters): such orders are still found, never made again.
 */
export function legacyAttemptReference(base: string, attempt: number): string {
  const suffix = `-${attempt}`;
  return `${base.slice(0, LIMITS.referenceLength - suffix.length)}${suffix}`;
}


/**
 * What is wrong with a checkout's own reference (a cart's id), beyond an order's reference rules: too long to have
 * attempts, or the kit's pattern of an attempt. Checked where a token is issued (a token's tag vouches for the rest).
 */
export function checkoutReferenceViolation(reference: string): Violation | undefined {
  if (reference.length > CHECKOUT_REFERENCE_LENGTH) {
    return { field: 'reference', rule: 'maxLength', message: `reference must be at most ${CHECKOUT_REFERENCE_LENGTH} characters: the kit adds "--2", "--3", … for a checkout's next attempts` };
  }
  if (RESERVED_REFERENCE.test(reference)) {
    return { field: 'reference', rule: 'reserved', message: 'reference must not end in "--" and a number: such references are the kit\'s attempts of a checkout' };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// The wire form

/** The payload of a token as text: canonical JSON of the short keys, base64url (by `encode`: the kit's is native). */
export function encodeCheckoutPayload(claims: CheckoutTokenClaims, encode: (text: string) => string = base64UrlEncode): string {
  const k = CHECKOUT_KEYS;
  const short: Record<string, unknown> = {
    [k.merchantId]: claims.merchantId,
    [k.reference]: claims.reference,
    [k.total]: claims.amount.total,
    [k.currency]: claims.amount.currency,
    [k.country]: claims.country,
    [k.productName]: claims.product.name,
    [k.productDescription]: claims.product.description,
    [k.methods]: claims.methods,
    [k.expireAt]: claims.expireAt,
    [k.merchantName]: claims.merchantName,
    [k.callbackUrl]: claims.callbackUrl,
    [k.returnUrl]: claims.returnUrl,
    [k.attempts]: claims.attempts,
    [k.attempt]: claims.attempt,
    [k.started]: claims.started,
    [k.sandbox]: claims.sandbox,
    [CONTACT_KEYS.payerContact]: claims.payerContact,
    [CONTACT_KEYS.contactOnFile]: claims.contactOnFile,
    [k.issuedAt]: claims.issuedAt,
    [k.expiresAt]: claims.expiresAt,
  };
  return encode(canonicalJson(short));
}

export function encodeOrderPayload(claims: OrderTokenClaims, encode: (text: string) => string = base64UrlEncode): string {
  // Every create and lookup issues one: the short object is written directly, in ORDER_KEYS' terms.
  const short: Record<string, unknown> = {};
  for (const name in ORDER_KEYS) short[ORDER_KEYS[name as keyof typeof ORDER_KEYS]] = claims[name as keyof OrderTokenClaims];
  return encode(canonicalJson(short));
}

export function encodeTicketPayload(claims: TicketClaims, encode: (text: string) => string = base64UrlEncode): string {
  const k = TICKET_KEYS;
  const short = { [k.merchantId]: claims.merchantId, [k.id]: claims.id, [k.total]: claims.amount.total, [k.currency]: claims.amount.currency, [k.merchantName]: claims.merchantName, [k.expiresAt]: claims.expiresAt };
  return encode(canonicalJson(short));
}

/** What each refusal tells the caller (the kit answers `02000` with it; the element explains it to the payer). */
export const TOKEN_REFUSALS: Readonly<Record<TokenRefusal, string>> = {
  missing: 'no checkout token: the shop must render one into the page',
  malformed: 'the token is not one the shop issued',
  forged: 'the token was altered, or signed with another key',
  expired: 'the token has expired: reload the page for a new one',
  merchant: 'the token belongs to another merchant',
  reference: 'the token does not cover this order',
  used: 'the ticket was used, or has expired: ask for a new one',
};

export interface ParsedToken<T> {
  kind: TokenKind;
  /** `<kind>.<payload>`: what the tag signs. */
  signed: string;
  tag: string;
  claims: T;
}

export type TokenParse<T> = { ok: true; token: ParsedToken<T> } | { ok: false; reason: TokenRefusal };

/** Reads a checkout token's claims without checking its tag (the page may; only the kit can check it). */
export function parseCheckoutToken(token: unknown): TokenParse<CheckoutTokenClaims> {
  return parseToken(token, 'checkout', (short) => {
    const claims = validateCheckoutClaims({
      ...uncheckedCheckoutClaims(short),
      payerContact: short[CONTACT_KEYS.payerContact],
      contactOnFile: short[CONTACT_KEYS.contactOnFile],
    });
    return claims.ok ? claims.value : undefined;
  });
}

export function parseOrderToken(token: unknown): TokenParse<OrderTokenClaims> {
  return parseToken(token, 'order', (short) => {
    const claims = validate<OrderTokenClaims>(
      ORDER_TOKEN_CLAIMS,
      Object.fromEntries(Object.entries(ORDER_KEYS).map(([name, key]) => [name, short[key]])),
    );
    return claims.ok ? claims.value : undefined;
  });
}

export function parseTicket(token: unknown): TokenParse<TicketClaims> {
  return parseToken(token, 'ticket', (short) => {
    const k = TICKET_KEYS;
    const claims = validate<TicketClaims>(TICKET_CLAIMS, {
      merchantId: short[k.merchantId],
      id: short[k.id],
      amount: { total: short[k.total], currency: short[k.currency] },
      merchantName: short[k.merchantName],
      expiresAt: short[k.expiresAt],
    });
    return claims.ok ? claims.value : undefined;
  });
}

function parseToken<T>(token: unknown, kind: TokenKind, read: (short: Record<string, unknown>) => T | undefined): TokenParse<T> {
  const payload = readTokenPayload(token, kind);
  if (typeof payload === 'string') return { ok: false, reason: payload };
  const claims = read(payload.short);
  if (!claims) return { ok: false, reason: 'malformed' };
  return { ok: true, token: { kind, signed: payload.signed, tag: payload.tag, claims } };
}
