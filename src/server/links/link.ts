/**
 * Payment links (docs/pay-links.md): one checkout — the shop's cart id, amount, currency, country, product, and
 * optionally the payer's contact — sealed into the address of the kit's pay page (`<shop><basePath>/pay/<link>`).
 *
 * A link is sealed with AES-256-GCM under a key derived from the merchant's private key for this purpose alone
 * (`HMAC-SHA512(privateKey, "svc-checkout:pay-link:v1")`, its first 32 bytes): nothing of it can be read from the
 * address, and any change to it, or a link of another key, fails to open. The checkout, order and ticket tokens have
 * keys of their own and another form (`ct1.…`), so a link is never taken for a checkout token nor the other way round.
 * WebCrypto only: it runs on Node, Deno, Bun, workerd and edge runtimes alike.
 *
 * A link's lifetime is its own (default 7 days, at most 30), independent of the orders its checkout makes: an order's
 * `expireAt` starts when the payer pays.
 */
import { base64UrlBytes, DEFAULT_ATTEMPTS, validateCheckoutClaims, type Violation } from '../../core/index.js';
import { hmacSha512Bytes } from '../runtime/signature.js';
import { checkPayerContact, type PayerContact } from '../tokens/contact.js';
import { issueCheckoutToken, type CheckoutOrder, type TokenCredentials } from '../tokens/tokens.js';

/** The payer's contact the shop may seal into a link: never shown to whoever holds the link. */
export type PaymentLinkPayer = PayerContact;

/** What a link carries: a checkout's order, as a checkout token would, and the payer's contact. */
export interface PaymentLinkOrder extends CheckoutOrder {
  payer?: PaymentLinkPayer;
}

export interface PaymentLinkOptions {
  /** The shop's public address, where the kit is mounted under `basePath` (`https://shop.example`). */
  shopUrl: string;
  /** The kit's base path on the shop. Default `/checkout`. */
  basePath?: string;
  /** How long the link is good for, in seconds. Default 7 days, at most 30 days. */
  expiresInSeconds?: number;
  /** The moment of issue, in milliseconds. */
  now?: number;
}

export interface PaymentLink {
  /** The pay page's address: send it to the payer. */
  url: string;
  /** The sealed link alone (the last segment of `url`). */
  link: string;
  /** Unix seconds; the pay page refuses the link after it. */
  expiresAt: number;
}

/** A link as the kit reads it back. */
export interface PaymentLinkClaims {
  merchantId: string;
  order: CheckoutOrder;
  payer?: PaymentLinkPayer;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds. */
  expiresAt: number;
}

export type PaymentLinkRefusal = 'malformed' | 'forged' | 'merchant' | 'expired';
export type PaymentLinkCheck = { ok: true; claims: PaymentLinkClaims } | { ok: false; reason: PaymentLinkRefusal; claims?: PaymentLinkClaims };

export const DEFAULT_LINK_SECONDS = 7 * 86_400;
export const MAX_LINK_SECONDS = 30 * 86_400;
/** The link's prefix: its form and version. */
export const LINK_PREFIX = 'pl1';
const PURPOSE = 'svc-checkout:pay-link:v1';
const IV_BYTES = 12;
/** A link longer than this is not one the kit made (a product's words and a contact fit in far less). */
export const MAX_LINK_LENGTH = 4_096;

/** A link the shop asked for that the kit cannot make: its message names each field. */
export class PaymentLinkError extends TypeError {
  override readonly name = 'PaymentLinkError';
  constructor(readonly violations: Violation[]) {
    super(`the payment link is not valid: ${violations.map((violation) => violation.message).join('; ')}`);
  }
}

const keys = new Map<string, Promise<CryptoKey>>();

/** The AES-GCM key of links, derived once per private key. */
function keyFor(privateKey: string): Promise<CryptoKey> {
  let key = keys.get(privateKey);
  if (!key) {
    if (keys.size >= 32) keys.delete(keys.keys().next().value as string);
    key = hmacSha512Bytes(privateKey, PURPOSE).then((bytes) =>
      crypto.subtle.importKey('raw', bytes.slice(0, 32), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']),
    );
    key.catch(() => keys.delete(privateKey));
    keys.set(privateKey, key);
  }
  return key;
}

const AAD = new TextEncoder().encode(LINK_PREFIX);

function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The shop's address and base path, checked: an http(s) origin (and path) without query, and a path that starts with `/`. */
function pageAddress(options: PaymentLinkOptions): string {
  const problems: Violation[] = [];
  let shop: URL | undefined;
  try {
    shop = new URL(options.shopUrl);
  } catch {
    shop = undefined;
  }
  if (!shop || (shop.protocol !== 'https:' && shop.protocol !== 'http:') || shop.search || shop.hash || shop.username || shop.password) {
    problems.push({ field: 'shopUrl', rule: 'url', message: `shopUrl must be the shop's public http(s) address (such as https://shop.example), not ${JSON.stringify(options.shopUrl)}` });
  }
  const basePath = options.basePath ?? '/checkout';
  if (typeof basePath !== 'string' || (basePath !== '' && !/^\/[\w\-./~%]*$/.test(basePath))) {
    problems.push({ field: 'basePath', rule: 'format', message: `basePath must be a path that starts with / (such as /checkout), not ${JSON.stringify(basePath)}` });
  }
  if (problems.length > 0) throw new PaymentLinkError(problems);
  return `${shop!.href.replace(/\/+$/, '')}${basePath.replace(/\/+$/, '')}/pay/`;
}

/**
 * A payment link for one checkout, signed with the merchant's credentials. Its order is checked as a checkout
 * token's is (the same rules, the same error naming each field); the payer's contact as the reference code's notice.
 */
export async function createPaymentLink(credentials: TokenCredentials, order: PaymentLinkOrder, options: PaymentLinkOptions): Promise<PaymentLink> {
  const address = pageAddress(options);
  const lifetime = options.expiresInSeconds ?? DEFAULT_LINK_SECONDS;
  if (typeof lifetime !== 'number' || !Number.isInteger(lifetime) || lifetime < 60 || lifetime > MAX_LINK_SECONDS) {
    throw new PaymentLinkError([{ field: 'expiresInSeconds', rule: 'range', message: `expiresInSeconds must be a whole number of seconds from 60 to ${MAX_LINK_SECONDS} (30 days), not ${JSON.stringify(lifetime)}` }]);
  }
  // What the kit's own tokens decide (the attempt a page starts at, test mode) is never a link's.
  const { payer, attempt: _attempt, started: _started, sandbox: _sandbox, ...checkout } = order;
  const nowMs = options.now ?? Date.now();
  // The order and the payer's contact as a checkout token would carry them: the same rules, said the same way. As the
  // pay page issues it at its longest (the last attempt, started, test mode): a contact that would make a token no kit
  // reads refuses the link now, not its payer at the create.
  const longest = { ...checkout, attempt: checkout.attempts ?? DEFAULT_ATTEMPTS, started: true, sandbox: true, ...(payer ? { payer } : {}) };
  await issueCheckoutToken(credentials, longest, { now: nowMs }).catch((error: unknown) => {
    throw new PaymentLinkError((error as { violations?: Violation[] }).violations ?? [{ field: 'order', rule: 'valid', message: String(error) }]);
  });
  const issuedAt = Math.floor(nowMs / 1000);
  const expiresAt = issuedAt + lifetime;
  const claims: PaymentLinkClaims = { merchantId: credentials.merchantId, order: checkout, issuedAt, expiresAt, ...(payer ? { payer } : {}) };
  const link = await seal(credentials.privateKey, claims);
  return { url: `${address}${link}`, link, expiresAt };
}

async function seal(privateKey: string, claims: PaymentLinkClaims): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const plain = new TextEncoder().encode(JSON.stringify(compact(claims)));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: AAD }, await keyFor(privateKey), plain));
  const bytes = new Uint8Array(IV_BYTES + sealed.byteLength);
  bytes.set(iv);
  bytes.set(sealed, IV_BYTES);
  return `${LINK_PREFIX}.${base64Url(bytes)}`;
}

/**
 * Opens a link: its form, then its seal (nothing a forger wrote is believed), then that it is this merchant's and
 * still good. An expired link's claims come with the refusal, so that the shop may issue a fresh one for its cart.
 * Never throws for anything the sender controls.
 */
export async function readPaymentLink(link: unknown, credentials: TokenCredentials, nowMs = Date.now()): Promise<PaymentLinkCheck> {
  if (typeof link !== 'string' || link.length > MAX_LINK_LENGTH) return { ok: false, reason: 'malformed' };
  const [prefix, body, ...rest] = link.split('.');
  if (prefix !== LINK_PREFIX || body === undefined || rest.length > 0) return { ok: false, reason: 'malformed' };
  const read = base64UrlBytes(body);
  const bytes = read && new Uint8Array(read);
  if (!bytes || bytes.byteLength < IV_BYTES + 16) return { ok: false, reason: 'malformed' };
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.subarray(0, IV_BYTES), additionalData: AAD }, await keyFor(credentials.privateKey), bytes.subarray(IV_BYTES));
  } catch {
    return { ok: false, reason: 'forged' };
  }
  const claims = claimsOf(new TextDecoder().decode(plain));
  // Sealed under this key yet not a link's claims: never made by the kit.
  if (!claims) return { ok: false, reason: 'forged' };
  if (claims.merchantId !== credentials.merchantId) return { ok: false, reason: 'merchant' };
  if (claims.expiresAt * 1000 <= nowMs) return { ok: false, reason: 'expired', claims };
  return { ok: true, claims };
}

/**
 * What a link carries, in order: a JSON array rather than an object of names, so that the link (and its QR code) is as
 * short as it can be. The first item is the form's version; an absent value is null, and trailing nulls are left out.
 */
const LINK_VERSION = 1;
const ORDER_FIELDS = ['reference', 'amount.total', 'amount.currency', 'country', 'product.name', 'product.description', 'merchantName', 'methods', 'expireAt', 'attempts', 'callbackUrl', 'returnUrl'] as const;
const PAYER_FIELDS = ['name', 'email', 'phone'] as const;

const pick = (value: unknown, path: string): unknown => path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], value);

function compact(claims: PaymentLinkClaims): unknown[] {
  const payer = claims.payer && PAYER_FIELDS.map((field) => claims.payer![field] ?? null);
  const items: unknown[] = [LINK_VERSION, claims.merchantId, claims.issuedAt, claims.expiresAt, payer ?? null, ...ORDER_FIELDS.map((path) => pick(claims.order, path) ?? null)];
  while (items.at(-1) === null) items.pop();
  return items;
}

function claimsOf(text: string): PaymentLinkClaims | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value[0] !== LINK_VERSION) return undefined;
  const [, merchantId, issuedAt, expiresAt, payerItems, ...orderItems] = value as unknown[];
  const order: Record<string, unknown> = {};
  ORDER_FIELDS.forEach((path, index) => {
    const item = orderItems[index];
    if (item === null || item === undefined) return;
    const [head, tail] = path.split('.') as [string, string | undefined];
    if (tail === undefined) order[head] = item;
    else order[head] = { ...(order[head] as object | undefined), [tail]: item };
  });
  let payer: PaymentLinkPayer | undefined;
  if (Array.isArray(payerItems)) {
    payer = {};
    PAYER_FIELDS.forEach((field, index) => {
      if (typeof payerItems[index] === 'string') payer![field] = payerItems[index] as string;
    });
  }
  if (typeof issuedAt !== 'number' || typeof expiresAt !== 'number') return undefined;
  const checked = validateCheckoutClaims({ ...order, merchantId, issuedAt, expiresAt });
  if (!checked.ok || !checkPayerContact(payer).ok) return undefined;
  const { merchantId: mid, issuedAt: _issued, expiresAt: _expires, ...checkout } = checked.value;
  return Object.freeze({ merchantId: mid, order: checkout, issuedAt, expiresAt, ...(payer ? { payer } : {}) });
}

/** `3d`, `12h`, `90m`, `600s` or plain seconds, as the command line takes a link's lifetime: seconds, or undefined. */
export function durationSeconds(text: string): number | undefined {
  const match = /^(\d{1,7})([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3_600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
