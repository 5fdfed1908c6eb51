/**
 * The service's signing contract (DESIGN.md §4), as both sides speak it: a request is signed over its body's exact
 * bytes and sent as `Authorization: Bearer <hex>` beside `MerchantId`; a callback (scheme v2) over its
 * `RequestTimestamp` followed by its body, in `Authorization` (the sample, no `Bearer`) or `Signature` (the prose).
 * The HMAC-SHA512 itself is the caller's (`Hmac`): the kit's runtime brings node:crypto or WebCrypto, the sandbox
 * node:crypto, and this module needs neither.
 */

/** HMAC-SHA512 of `data` keyed with `key` (a private key's text, or key bytes). */
export type Hmac = (key: string | Uint8Array, data: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** The headers of the contract. */
export const SIGNING_HEADERS = {
  authorization: 'Authorization',
  /** The callback description's name for the signature header; its sample uses `Authorization`. */
  signature: 'Signature',
  merchantId: 'MerchantId',
  timestamp: 'RequestTimestamp',
} as const;

/** How far a callback's timestamp may be from now, either way, unless the receiver says otherwise. */
export const CALLBACK_TOLERANCE_SECONDS = 300;

/** Timestamps below this are seconds (1e11 seconds is the year 5138; 1e11 milliseconds is 1973). */
const SECONDS_LIMIT = 1e11;

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

export function utf8Bytes(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? encoder.encode(data) : data;
}

/** UTF-8 text of a body, or undefined when its bytes are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

export function fromHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

/** Compares two byte strings in time that depends on their length only. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= (a[index] as number) ^ (b[index] as number);
  return difference === 0;
}

/** A Fetch `Headers` (anything with its `get`), or a plain object of header values (Node's `IncomingHttpHeaders`). */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | readonly string[] | undefined>;

/** Reads a header whatever the container and the case of its name. */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(', ');
  }
  return undefined;
}

export function requireKey(privateKey: string): void {
  if (typeof privateKey !== 'string' || privateKey.length === 0) throw new TypeError('privateKey is required');
}

/** The bytes the v2 callback scheme signs: the `RequestTimestamp` header's text followed by the body. */
export function callbackMessage(timestamp: string | number, body: string | Uint8Array): Uint8Array {
  const prefix = encoder.encode(String(timestamp));
  const rest = utf8Bytes(body);
  const message = new Uint8Array(prefix.length + rest.length);
  message.set(prefix, 0);
  message.set(rest, prefix.length);
  return message;
}

/** The request signature: lowercase hex HMAC-SHA512 of exactly these body bytes. */
export async function signRequestWith(hmac: Hmac, body: string | Uint8Array, privateKey: string): Promise<string> {
  requireKey(privateKey);
  return toHex(await hmac(privateKey, utf8Bytes(body)));
}

/** The callback signature, scheme v2: lowercase hex HMAC-SHA512 of `RequestTimestamp` + body. */
export async function signCallbackWith(hmac: Hmac, timestamp: string | number, body: string | Uint8Array, privateKey: string): Promise<string> {
  requireKey(privateKey);
  return toHex(await hmac(privateKey, callbackMessage(timestamp, body)));
}

export interface VerifyCallbackOptions {
  headers: HeaderSource;
  /** The raw body exactly as received. */
  body: string | Uint8Array;
  privateKey: string;
  /** When given, the `MerchantId` header must equal it. */
  merchantId?: string;
  /** The time to measure the timestamp against, in milliseconds (or a Date); default now. */
  now?: number | Date;
  /** How far the timestamp may be from `now`, either way. Default 300. */
  toleranceSeconds?: number;
}

export type CallbackRejection =
  | 'missing-signature'
  | 'malformed-signature'
  | 'missing-timestamp'
  | 'malformed-timestamp'
  | 'stale-timestamp'
  | 'merchant-mismatch'
  | 'bad-signature';

export type CallbackVerification = { ok: true; timestamp: number } | { ok: false; reason: CallbackRejection; message: string };

function signatureCandidates(headers: HeaderSource): string[] {
  return [SIGNING_HEADERS.authorization, SIGNING_HEADERS.signature]
    .map((name) => readHeader(headers, name)?.trim())
    .filter((value): value is string => value !== undefined && value.length > 0)
    .map((value) => value.replace(/^bearer\s+/i, '').trim());
}

/**
 * Checks a callback: the v2 signature (in `Authorization` or `Signature`, with or without `Bearer `), the
 * `RequestTimestamp` (seconds or milliseconds) within the tolerance, and, when asked, the `MerchantId`. Says why it
 * rejected; never throws for anything the sender controls.
 */
export async function verifyCallbackWith(hmac: Hmac, options: VerifyCallbackOptions): Promise<CallbackVerification> {
  requireKey(options.privateKey);
  const toleranceSeconds = options.toleranceSeconds ?? CALLBACK_TOLERANCE_SECONDS;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds <= 0) {
    throw new TypeError('toleranceSeconds must be a number of seconds greater than 0');
  }
  const reject = (reason: CallbackRejection, message: string): CallbackVerification => ({ ok: false, reason, message });

  const candidates = signatureCandidates(options.headers);
  if (candidates.length === 0) return reject('missing-signature', 'no Authorization or Signature header');
  const signatures = candidates.map(fromHex).filter((bytes): bytes is Uint8Array => bytes?.length === 64);
  if (signatures.length === 0) return reject('malformed-signature', 'the signature is not 128 hex digits');

  const timestampText = readHeader(options.headers, SIGNING_HEADERS.timestamp)?.trim();
  if (!timestampText) return reject('missing-timestamp', 'no RequestTimestamp header');
  if (!/^\d{1,16}$/.test(timestampText)) return reject('malformed-timestamp', 'RequestTimestamp is not a whole number');
  const raw = Number(timestampText);
  const timestamp = raw < SECONDS_LIMIT ? raw * 1000 : raw;
  const now = options.now instanceof Date ? options.now.getTime() : (options.now ?? Date.now());
  const toleranceMs = toleranceSeconds * 1000;
  if (Math.abs(now - timestamp) > toleranceMs) {
    return reject('stale-timestamp', `RequestTimestamp is more than ${toleranceMs / 1000} seconds from now`);
  }

  if (options.merchantId !== undefined && readHeader(options.headers, SIGNING_HEADERS.merchantId)?.trim() !== options.merchantId) {
    return reject('merchant-mismatch', 'MerchantId is not this merchant');
  }

  const expected = await hmac(options.privateKey, callbackMessage(timestampText, options.body));
  let matched = false;
  for (const signature of signatures) matched = constantTimeEqual(signature, expected) || matched;
  if (!matched) return reject('bad-signature', 'the signature does not match the body and timestamp');
  return { ok: true, timestamp };
}

export interface VerifyRequestOptions {
  /** `Authorization` of the request: `Bearer <hex HMAC-SHA512 of the body>`. */
  authorization: string | undefined;
  /** The raw body exactly as received. */
  body: string | Uint8Array;
  privateKey: string;
  /** When given, `Bearer <publicKey>` is accepted too (the SDK's status queries send it). */
  publicKey?: string;
}

/**
 * Checks a request signature as the service does: `Authorization: Bearer <signature>` over the raw bytes received,
 * compared in constant time.
 */
export async function verifyRequestWith(hmac: Hmac, options: VerifyRequestOptions): Promise<boolean> {
  requireKey(options.privateKey);
  const token = /^Bearer\s+(\S+)$/i.exec(options.authorization?.trim() ?? '')?.[1];
  if (!token) return false;
  if (options.publicKey !== undefined && constantTimeEqual(encoder.encode(token), encoder.encode(options.publicKey))) return true;
  const given = fromHex(token);
  if (given?.length !== 64) return false;
  return constantTimeEqual(given, await hmac(options.privateKey, utf8Bytes(options.body)));
}
