/**
 * The wire form of the tokens (src/core/tokens.ts), and nothing that checks them: their kinds, short keys,
 * base64url, and a reader of the payload. Light on purpose: the element's first frame reads what a checkout
 * token says (to show it) with this alone, and the isolated frame what a checkout token or a ticket says the payer
 * pays; the rules that validate the claims load with the session.
 */
import { parseJson } from './json.js';

export const TOKEN_KINDS = { checkout: 'ct1', order: 'ot1', ticket: 'tk1' } as const;
export type TokenKind = keyof typeof TOKEN_KINDS;

/** Attempts of a checkout: `reference`, `reference--2`, … up to this many unless the token says otherwise. */
export const DEFAULT_ATTEMPTS = 10;
export const MAX_ATTEMPTS = 99;
/** How long a checkout token is good for unless the merchant's server says otherwise: one hour. */
export const DEFAULT_CHECKOUT_TOKEN_SECONDS = 3_600;
/** At most a week: a token is a proof for one visit to the checkout, not a permanent link. */
export const MAX_CHECKOUT_TOKEN_SECONDS = 7 * 86_400;

/** Short wire names of the claims: a token goes into a page and into every request's headers. */
export const CHECKOUT_KEYS = {
  merchantId: 'mid',
  reference: 'ref',
  total: 'amt',
  currency: 'cur',
  country: 'cty',
  productName: 'pn',
  productDescription: 'pd',
  methods: 'pm',
  expireAt: 'xa',
  merchantName: 'mn',
  callbackUrl: 'cb',
  returnUrl: 'ru',
  attempts: 'att',
  attempt: 'atn',
  started: 'st',
  sandbox: 'sb',
  issuedAt: 'iat',
  expiresAt: 'exp',
} as const;

/**
 * A ticket's claims by their wire names (src/core/tokens.ts, `TicketClaims`): what the payer pays has the checkout
 * token's own keys (`amt`, `cur`, `mn`), so that the isolated frame reads either proof alike.
 */
export const TICKET_KEYS = {
  merchantId: CHECKOUT_KEYS.merchantId,
  id: 'tid',
  total: CHECKOUT_KEYS.total,
  currency: CHECKOUT_KEYS.currency,
  merchantName: CHECKOUT_KEYS.merchantName,
  expiresAt: CHECKOUT_KEYS.expiresAt,
} as const;

export type TokenRefusal = 'missing' | 'malformed' | 'forged' | 'expired' | 'merchant' | 'reference' | 'used';

/** What a proof says the payer pays, as the isolated frame shows it: read, never checked (only the kit can). */
export interface ShownPayment {
  total: number;
  currency: string;
  merchantName?: string | undefined;
}

/**
 * What a checkout token or a ticket says the payer pays; undefined for any other text, or one that says none. Read with
 * the platform's JSON alone: the isolated frame's page carries this and no parser of its own.
 */
export function shownPaymentOf(proof: unknown): ShownPayment | undefined {
  const [kind, payload] = typeof proof === 'string' ? proof.split('.') : [];
  if ((kind !== TOKEN_KINDS.checkout && kind !== TOKEN_KINDS.ticket) || !payload) return undefined;
  let short: Record<string, unknown> | null;
  try {
    // base64url to UTF-8 in the platform's few words (`escape` turns each byte into a %-escape `decodeURIComponent`
    // reads as UTF-8): atob, escape and decodeURIComponent each throw on what is not theirs.
    short = JSON.parse(decodeURIComponent(escape(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))))) as Record<string, unknown> | null;
  } catch {
    return undefined;
  }
  const { [CHECKOUT_KEYS.total]: total, [CHECKOUT_KEYS.currency]: currency, [CHECKOUT_KEYS.merchantName]: merchantName } = short ?? {};
  if (!Number.isSafeInteger(total) || typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) return undefined;
  return { total: total as number, currency, merchantName: typeof merchantName === 'string' && merchantName.trim() ? merchantName : undefined };
}

/** A token's parts and its payload's short-key object, before any claim is checked; or why it has none. */
export function readTokenPayload(
  token: unknown,
  kind: TokenKind,
): { signed: string; tag: string; short: Record<string, unknown> } | Extract<TokenRefusal, 'missing' | 'malformed'> {
  if (typeof token !== 'string' || token.trim() === '') return 'missing';
  const parts = token.trim().split('.');
  if (parts.length !== 3 || parts[0] !== TOKEN_KINDS[kind] || (parts[1] as string).length > 4096) return 'malformed';
  const [prefix, payload, tag] = parts as [string, string, string];
  const text = base64UrlDecode(payload);
  const parsed = text === undefined ? undefined : parseJson(text);
  if (!parsed?.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) return 'malformed';
  return { signed: `${prefix}.${payload}`, tag, short: parsed.value as Record<string, unknown> };
}

/**
 * A checkout token's claims by their long names, as written: not checked (tokens.ts checks them, and that every claim
 * of `CheckoutTokenClaims` is read here).
 */
export function uncheckedCheckoutClaims(short: Record<string, unknown>) {
  // Each claim by its long name, read through CHECKOUT_KEYS (the one spelling of the wire's names); then the amount's
  // and the product's two each gathered as CheckoutTokenClaims has them.
  const claims = Object.fromEntries(Object.entries(CHECKOUT_KEYS).map(([name, key]) => [name, short[key]])) as Record<keyof typeof CHECKOUT_KEYS, unknown>;
  const { total, currency, productName, productDescription, ...rest } = claims;
  return { ...rest, amount: { total, currency }, product: { name: productName, description: productDescription } };
}

// ---------------------------------------------------------------------------------------------------------
// base64url of UTF-8 text, written out: core runs where neither Buffer nor a DOM is certain.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export function base64UrlEncode(input: string | Uint8Array): string {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  let out = '';
  for (let index = 0; index < bytes.length; index += 3) {
    const a = bytes[index] as number;
    const b = bytes[index + 1];
    const c = bytes[index + 2];
    out += ALPHABET[a >> 2];
    out += ALPHABET[((a & 3) << 4) | ((b ?? 0) >> 4)];
    if (b !== undefined) out += ALPHABET[((b & 15) << 2) | ((c ?? 0) >> 6)];
    if (c !== undefined) out += ALPHABET[c & 63];
  }
  return out;
}

/** Each character's six bits by its code, -1 for a character outside the alphabet. */
// Pure: a page that never reads a tag (the element's first frame) leaves the table out.
const SEXTETS = /*#__PURE__*/ (() => {
  const table = new Int8Array(128).fill(-1);
  for (let index = 0; index < ALPHABET.length; index++) table[ALPHABET.charCodeAt(index)] = index;
  return table;
})();

export function base64UrlBytes(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const bytes = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let offset = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const sextet = code < 128 ? (SEXTETS[code] as number) : -1;
    if (sextet < 0) return undefined;
    value = ((value << 6) | sextet) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[offset++] = (value >> bits) & 255;
    }
  }
  // One text per byte string: bits left over past the last byte must be zero, or a tag could be respelled.
  if ((value & ((1 << bits) - 1)) !== 0) return undefined;
  return bytes.subarray(0, offset);
}

/**
 * A payload's base64url text as UTF-8, through the platform's `atob`: a few lines where a decoder of our own is a
 * few hundred bytes of every page's first frame. Only base64url's own characters are taken, so that a token a page
 * mangled (a line break, padding, `+` or `/`) is malformed at once rather than refused by the kit when the payer
 * pays. `atob` still forgives spare bits that are not zero; nothing is believed of a payload for it, since the
 * token's tag covers the text exactly as sent. A tag's own bytes are read strictly (`base64UrlBytes`).
 */
export function base64UrlDecode(text: string): string | undefined {
  if (!/^[\w-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/[-_]/g, (char) => (char === '-' ? '+' : '/')));
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
