/**
 * Checkout tokens and order tokens (their claims and wire form are in src/core/tokens.ts): issued and checked
 * here, with keys derived from the merchant's private key, one per purpose. The request-signing key itself
 * never signs a token, so a token can never be replayed to the service as a request signature, nor the other
 * way round, and one kind of token never passes for the other.
 */
import {
  base64UrlBytes,
  base64UrlEncode,
  checkoutReferenceViolation,
  DEFAULT_CHECKOUT_TOKEN_SECONDS,
  encodeCheckoutPayload,
  encodeOrderPayload,
  encodeTicketPayload,
  MAX_CHECKOUT_TOKEN_SECONDS,
  parseCheckoutToken,
  parseOrderToken,
  parseTicket,
  TOKEN_KINDS,
  validateCheckoutClaims,
  type CheckoutTokenClaims,
  type OrderTokenClaims,
  type ParsedToken,
  type TicketClaims,
  type TokenKind,
  type TokenParse,
  type TokenRefusal,
  type Violation,
} from '../../core/index.js';
import { isLiveAddressAllowed } from '../../core/addresses.js';
import { numberOption } from '../config/checks.js';
import { BoundedMap } from '../stores/bounded-map.js';
import { nodeBuffer } from '../runtime/modules.js';
import { constantTimeEqual, hmacSha512Bytes } from '../runtime/signature.js';
import { checkPayerContact, sealPayerContact, type PayerContact } from './contact.js';

/**
 * The order the merchant's server decides; the kit adds who issued it and until when. `payer`: what the shop knows of
 * the payer's contact, sealed into the token (contact.ts), which the kit fills a reference code's notice from.
 */
export type CheckoutOrder = Omit<CheckoutTokenClaims, 'merchantId' | 'issuedAt' | 'expiresAt' | 'payerContact' | 'contactOnFile'> & { payer?: PayerContact | undefined };

export interface TokenCredentials {
  merchantId: string;
  privateKey: string;
}

export interface IssueCheckoutTokenOptions {
  /** How long the token is good for. Default 3 600 (one hour), at most a week. */
  expiresInSeconds?: number;
  /** The moment of issue, in milliseconds. */
  now?: number;
}

/** An order the kit cannot vouch for: its message names each field and the rule it breaks. */
export class CheckoutTokenError extends TypeError {
  override readonly name = 'CheckoutTokenError';
  constructor(readonly violations: Violation[]) {
    super(`the checkout order is not valid: ${violations.map((violation) => violation.message).join('; ')}`);
  }
}

/** Tags are HMAC-SHA512 cut to 256 bits: as strong as a forger needs to fail, and half as long in a header. */
const TAG_BYTES = 32;

const PURPOSES: Record<TokenKind, string> = {
  checkout: 'svc-checkout:checkout-token:v1',
  order: 'svc-checkout:order-token:v1',
  ticket: 'svc-checkout:ticket:v1',
};

/**
 * What the kit keeps per private key and kind of token: the key derived for that purpose, and the order tokens it
 * has already proved (their tags checked and their claims read), so that an element polling the status of its
 * order every few seconds has its token checked once. A token is proved by its exact text under this key alone;
 * who issued it and until when are checked again at every use. Checkout tokens are not kept: a page shows one for
 * a create or two, and keeping each one (its text and claims, every create) cost the kit more in garbage
 * collection than checking it again would.
 */
interface Keyring {
  key: Promise<Uint8Array>;
  proved: BoundedMap<string, Readonly<{ merchantId: string; expiresAt: number }>>;
}

const keyrings = new Map<string, Keyring>();
const KEYRINGS_LIMIT = 32;
const PROVED_LIMIT = 4_096;

/** HMAC-SHA512(privateKey, purpose): a key for one purpose, computed once per key and purpose. */
/** The last keyring used, per kind: a kit has one key, and a lookup would hash the key's text every call. */
const lastRing: Partial<Record<TokenKind, { privateKey: string; ring: Keyring }>> = {};

function keyringFor(privateKey: string, kind: TokenKind): Keyring {
  const last = lastRing[kind];
  if (last?.privateKey === privateKey) return last.ring;
  const ring = findKeyring(privateKey, kind);
  lastRing[kind] = { privateKey, ring };
  return ring;
}

function findKeyring(privateKey: string, kind: TokenKind): Keyring {
  const id = `${kind}\u0000${privateKey}`;
  let ring = keyrings.get(id);
  if (!ring) {
    if (keyrings.size >= KEYRINGS_LIMIT) keyrings.delete(keyrings.keys().next().value as string);
    const key = hmacSha512Bytes(privateKey, PURPOSES[kind]);
    const created: Keyring = { key, proved: new BoundedMap(PROVED_LIMIT) };
    key.catch(() => {
      keyrings.delete(id);
      if (lastRing[kind]?.ring === created) delete lastRing[kind];
    });
    ring = created;
    keyrings.set(id, ring);
  }
  return ring;
}

/** The tag of `signed` under the key of its kind. */
async function tagOf(privateKey: string, kind: TokenKind, signed: string): Promise<Uint8Array> {
  const ring = keyringFor(privateKey, kind);
  return (await hmacSha512Bytes(await ring.key, signed)).subarray(0, TAG_BYTES);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** base64url in Node's native code where Buffer is there (every create issues a token); core's own elsewhere. */
function base64Url(input: string | Uint8Array): string {
  if (!nodeBuffer) return base64UrlEncode(input);
  const bytes = typeof input === 'string' ? nodeBuffer.from(input, 'utf8') : nodeBuffer.from(input.buffer, input.byteOffset, input.byteLength);
  return bytes.toString('base64url');
}

async function seal(privateKey: string, kind: TokenKind, payload: string): Promise<string> {
  const signed = `${TOKEN_KINDS[kind]}.${payload}`;
  return `${signed}.${base64Url(await tagOf(privateKey, kind, signed))}`;
}

/**
 * A checkout token for an order the merchant's server decided: render it into the page
 * (`<svc-checkout checkout-token="…">`). The kit takes the money, the reference, the country, the merchant name
 * and the callback URL from it, never from the browser.
 */
export async function issueCheckoutToken(
  credentials: TokenCredentials,
  order: CheckoutOrder,
  options: IssueCheckoutTokenOptions = {},
): Promise<string> {
  const lifetime = numberOption('expiresInSeconds', options.expiresInSeconds, {
    fallback: DEFAULT_CHECKOUT_TOKEN_SECONDS,
    min: 1,
    max: MAX_CHECKOUT_TOKEN_SECONDS,
    integer: true,
    unit: 'seconds',
  });
  const issuedAt = Math.floor((options.now ?? Date.now()) / 1000);
  // The contact is the kit's to seal: a sealed one given with the order is never taken.
  const { payer, payerContact: _sealed, contactOnFile: _onFile, ...rest } = order as CheckoutOrder & Partial<Pick<CheckoutTokenClaims, 'payerContact' | 'contactOnFile'>>;
  const checked = validateCheckoutClaims({ ...rest, merchantId: credentials.merchantId, issuedAt, expiresAt: issuedAt + lifetime });
  const contact = checkPayerContact(payer);
  if (!checked.ok || !contact.ok) throw new CheckoutTokenError([...(checked.ok ? [] : checked.violations), ...(contact.ok ? [] : contact.violations)]);
  let claims = checked.value;
  if (contact.value) claims = { ...claims, ...(await sealPayerContact(credentials.privateKey, claims, contact.value)) };
  const problems: Violation[] = [];
  const reference = checkoutReferenceViolation(claims.reference);
  if (reference) problems.push(reference);
  if (claims.callbackUrl !== undefined && !isLiveAddressAllowed(claims.callbackUrl)) {
    problems.push({ field: 'callbackUrl', rule: 'https', message: 'callbackUrl must be https: (http: only on a loopback address)' });
  }
  const offersReferenceCode = claims.methods === undefined || claims.methods.includes('ReferenceCode');
  if (offersReferenceCode && claims.product.description === undefined) {
    problems.push({ field: 'product.description', rule: 'required', message: 'product.description is required when ReferenceCode is offered' });
  }
  if (problems.length > 0) throw new CheckoutTokenError(problems);
  const token = await seal(credentials.privateKey, 'checkout', encodeCheckoutPayload(claims, base64Url));
  // Read back as every kit reads it (its caps: a sealed value's length, the payload's): a contact long enough to pass
  // its own rules may not fit in a token, and a token no kit reads strands its payer at the create.
  if (!parseCheckoutToken(token).ok) {
    throw new CheckoutTokenError([
      contact.value
        ? { field: 'payer', rule: 'maxLength', message: 'payer is too long for a checkout token: sealed with this order, the contact makes a token no kit reads (shorten it)' }
        : { field: 'order', rule: 'maxLength', message: 'the order is too long for a checkout token: shorten the product' },
    ]);
  }
  return token;
}

const CALLBACK_PURPOSE = 'svc-checkout:callback-checkout:v1';
const callbackKeys = new Map<string, Promise<Uint8Array>>();

/**
 * The kit's tag over what a callback address says of its attempt (src/server/checkouts/walk.ts): the service signs only a callback's
 * body, so what the kit put in the address is believed only under this tag, keyed for this purpose alone.
 */
export async function callbackCheckoutTag(privateKey: string, text: string): Promise<string> {
  let key = callbackKeys.get(privateKey);
  if (!key) {
    if (callbackKeys.size >= KEYRINGS_LIMIT) callbackKeys.delete(callbackKeys.keys().next().value as string);
    key = hmacSha512Bytes(privateKey, CALLBACK_PURPOSE);
    callbackKeys.set(privateKey, key);
  }
  return base64Url((await hmacSha512Bytes(await key, text)).subarray(0, 16));
}

/**
 * An order token is good for the order's own life and this much more: a page that comes back to the order
 * (3-D Secure, a reload) still reads its result. So an order token's expiry, less this, bounds the order's.
 */
export const ORDER_TOKEN_GRACE_SECONDS = 86_400;

/** The order token for an order a create made (the kit issues it; merchants rarely need to). */
export function issueOrderToken(privateKey: string, claims: OrderTokenClaims): Promise<string> {
  return seal(privateKey, 'order', encodeOrderPayload(claims, base64Url));
}

/** A ticket for an order the kit keeps (src/server/payments/tickets.ts): its own key, so no token passes for one. */
export function issueTicket(privateKey: string, claims: TicketClaims): Promise<string> {
  return seal(privateKey, 'ticket', encodeTicketPayload(claims, base64Url));
}

export type TokenCheck<T> = { ok: true; claims: T } | { ok: false; reason: TokenRefusal };

/**
 * Checks a token: its form, then its tag (so that nothing a forger wrote is believed), then that it is this
 * merchant's and still valid. An order token this key has proved before skips the first two. Never throws for
 * anything the sender controls. The claims are frozen: the same object may answer the next check of the same token.
 */
async function check<T extends { merchantId: string; expiresAt: number }>(
  token: unknown,
  kind: TokenKind,
  parse: (token: unknown) => TokenParse<T>,
  credentials: TokenCredentials,
  nowMs: number,
): Promise<TokenCheck<T>> {
  const ring = keyringFor(credentials.privateKey, kind);
  const proved = typeof token === 'string' ? (ring.proved.get(token) as T | undefined) : undefined;
  if (proved) return judge(proved, credentials, nowMs);
  const parsed = parse(token);
  if (!parsed.ok) return parsed;
  const read: ParsedToken<T> = parsed.token;
  const expected = await tagOf(credentials.privateKey, kind, read.signed);
  const given = base64UrlBytes(read.tag);
  if (!given || !constantTimeEqual(given, expected)) return { ok: false, reason: 'forged' };
  const claims = deepFreeze(read.claims);
  if (read.kind === 'order') ring.proved.set(token as string, claims);
  return judge(claims, credentials, nowMs);
}

function judge<T extends { merchantId: string; expiresAt: number }>(claims: T, credentials: TokenCredentials, nowMs: number): TokenCheck<T> {
  if (claims.merchantId !== credentials.merchantId) return { ok: false, reason: 'merchant' };
  if (claims.expiresAt * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

export function verifyCheckoutToken(token: unknown, credentials: TokenCredentials, now = Date.now()): Promise<TokenCheck<CheckoutTokenClaims>> {
  return check(token, 'checkout', parseCheckoutToken, credentials, now);
}

export function verifyOrderToken(token: unknown, credentials: TokenCredentials, now = Date.now()): Promise<TokenCheck<OrderTokenClaims>> {
  return check(token, 'order', parseOrderToken, credentials, now);
}

export function verifyTicket(token: unknown, credentials: TokenCredentials, now = Date.now()): Promise<TokenCheck<TicketClaims>> {
  return check(token, 'ticket', parseTicket, credentials, now);
}
