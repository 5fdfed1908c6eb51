/**
 * Checkout tokens and order tokens (their claims and wire form are in src/core/tokens.ts): issued and checked
 * here, with keys derived from the merchant's private key, one per purpose. The request-signing key itself
 * never signs a token, so a token can never be replayed to the service as a request signature, nor the other
 * way round, and one kind of token never passes for the other.
 */
import {
  base64UrlBytes,
  base64UrlEncode,
  DEFAULT_CHECKOUT_TOKEN_SECONDS,
  encodeCheckoutPayload,
  encodeOrderPayload,
  MAX_CHECKOUT_TOKEN_SECONDS,
  parseCheckoutToken,
  parseOrderToken,
  TOKEN_KINDS,
  validateCheckoutClaims,
  type CheckoutTokenClaims,
  type OrderTokenClaims,
  type ParsedToken,
  type TokenKind,
  type TokenParse,
  type TokenRefusal,
  type Violation,
} from '../core/index.js';
import { isLiveAddressAllowed } from './addresses.js';
import { constantTimeEqual, hmacSha512Bytes } from './signature.js';

/** The order the merchant's server decides; the kit adds who issued it and until when. */
export type CheckoutOrder = Omit<CheckoutTokenClaims, 'merchantId' | 'issuedAt' | 'expiresAt'>;

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

const PURPOSES: Record<TokenKind, string> = { checkout: 'svc-checkout:checkout-token:v1', order: 'svc-checkout:order-token:v1' };

const derivedKeys = new Map<string, Promise<Uint8Array>>();

/** HMAC-SHA512(privateKey, purpose): a key for one purpose, computed once per key and purpose. */
function derivedKey(privateKey: string, kind: TokenKind): Promise<Uint8Array> {
  const id = `${kind}\u0000${privateKey}`;
  let key = derivedKeys.get(id);
  if (!key) {
    if (derivedKeys.size >= 32) derivedKeys.delete(derivedKeys.keys().next().value as string);
    key = hmacSha512Bytes(privateKey, PURPOSES[kind]);
    derivedKeys.set(id, key);
  }
  return key;
}

async function tagOf(privateKey: string, kind: TokenKind, signed: string): Promise<Uint8Array> {
  const full = await hmacSha512Bytes(await derivedKey(privateKey, kind), signed);
  return full.subarray(0, TAG_BYTES);
}

async function seal(privateKey: string, kind: TokenKind, payload: string): Promise<string> {
  const signed = `${TOKEN_KINDS[kind]}.${payload}`;
  return `${signed}.${base64UrlEncode(await tagOf(privateKey, kind, signed))}`;
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
  const lifetime = options.expiresInSeconds ?? DEFAULT_CHECKOUT_TOKEN_SECONDS;
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > MAX_CHECKOUT_TOKEN_SECONDS) {
    throw new RangeError(`expiresInSeconds must be a whole number from 1 to ${MAX_CHECKOUT_TOKEN_SECONDS}`);
  }
  const issuedAt = Math.floor((options.now ?? Date.now()) / 1000);
  const checked = validateCheckoutClaims({ ...order, merchantId: credentials.merchantId, issuedAt, expiresAt: issuedAt + lifetime });
  if (!checked.ok) throw new CheckoutTokenError(checked.violations);
  const claims = checked.value;
  const problems: Violation[] = [];
  if (claims.callbackUrl !== undefined && !isLiveAddressAllowed(claims.callbackUrl)) {
    problems.push({ field: 'callbackUrl', rule: 'https', message: 'callbackUrl must be https: (http: only on a loopback address)' });
  }
  const offersReferenceCode = claims.methods === undefined || claims.methods.includes('ReferenceCode');
  if (offersReferenceCode && claims.product.description === undefined) {
    problems.push({ field: 'product.description', rule: 'required', message: 'product.description is required when ReferenceCode is offered' });
  }
  if (problems.length > 0) throw new CheckoutTokenError(problems);
  return seal(credentials.privateKey, 'checkout', encodeCheckoutPayload(claims));
}

/**
 * An order token is good for the order's own life and this much more: a page that comes back to the order
 * (3-D Secure, a reload) still reads its result. So an order token's expiry, less this, bounds the order's.
 */
export const ORDER_TOKEN_GRACE_SECONDS = 86_400;

/** The order token for an order a create made (the kit issues it; merchants rarely need to). */
export async function issueOrderToken(privateKey: string, claims: OrderTokenClaims): Promise<string> {
  return seal(privateKey, 'order', encodeOrderPayload(claims));
}

export type TokenCheck<T> = { ok: true; claims: T } | { ok: false; reason: TokenRefusal };

/**
 * Checks a token: its form, then its tag (so that nothing a forger wrote is believed), then that it is this
 * merchant's and still valid. Never throws for anything the sender controls.
 */
async function check<T extends { merchantId: string; expiresAt: number }>(
  parsed: TokenParse<T>,
  credentials: TokenCredentials,
  nowMs: number,
): Promise<TokenCheck<T>> {
  if (!parsed.ok) return parsed;
  const token: ParsedToken<T> = parsed.token;
  const given = base64UrlBytes(token.tag);
  const expected = await tagOf(credentials.privateKey, token.kind, token.signed);
  if (!given || !constantTimeEqual(given, expected)) return { ok: false, reason: 'forged' };
  if (token.claims.merchantId !== credentials.merchantId) return { ok: false, reason: 'merchant' };
  if (token.claims.expiresAt * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, claims: token.claims };
}

export function verifyCheckoutToken(token: unknown, credentials: TokenCredentials, now = Date.now()): Promise<TokenCheck<CheckoutTokenClaims>> {
  return check(parseCheckoutToken(token), credentials, now);
}

export function verifyOrderToken(token: unknown, credentials: TokenCredentials, now = Date.now()): Promise<TokenCheck<OrderTokenClaims>> {
  return check(parseOrderToken(token), credentials, now);
}
