/**
 * Request and callback signatures: lowercase hex HMAC-SHA512 keyed with the merchant's private key. Computed
 * with node:crypto where the runtime has it (a few microseconds, in the same tick) and with WebCrypto anywhere
 * else, so that the kit runs on Node, serverless and edge runtimes alike; runtime.ts decides which, once.
 */
import { nodeCrypto } from './runtime.js';

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** Imported keys, by private key. A merchant has one key, or a few during a rotation. */
const importedKeys = new Map<string, Promise<CryptoKey>>();
const IMPORTED_KEYS_LIMIT = 16;

function importHmacKey(key: string | Uint8Array): Promise<CryptoKey> {
  const raw = typeof key === 'string' ? encoder.encode(key) : key;
  return crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-512' }, false, ['sign']);
}

function hmacKeyFor(privateKey: string): Promise<CryptoKey> {
  let key = importedKeys.get(privateKey);
  if (!key) {
    if (importedKeys.size >= IMPORTED_KEYS_LIMIT) importedKeys.delete(importedKeys.keys().next().value as string);
    key = importHmacKey(privateKey);
    importedKeys.set(privateKey, key);
    key.catch(() => importedKeys.delete(privateKey));
  }
  return key;
}

function bytesOf(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? encoder.encode(data) : data;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function fromHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

function requireKey(privateKey: string): void {
  if (typeof privateKey !== 'string' || privateKey.length === 0) throw new TypeError('privateKey is required');
}

async function hmac(key: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, data as Uint8Array<ArrayBuffer>));
}

/** Keys given as bytes (the tokens' derived keys), imported once per array. */
const importedByteKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function byteKey(key: Uint8Array): Promise<CryptoKey> {
  let imported = importedByteKeys.get(key);
  if (!imported) {
    imported = importHmacKey(key);
    importedByteKeys.set(key, imported);
  }
  return imported;
}

async function webHmac(key: string | Uint8Array, data: string | Uint8Array): Promise<Uint8Array> {
  const cryptoKey = typeof key === 'string' ? await hmacKeyFor(key) : await byteKey(key);
  return hmac(cryptoKey, bytesOf(data));
}

/**
 * HMAC-SHA512 at once, where node:crypto is there; undefined elsewhere (then use `hmacSha512Bytes`). For the
 * kit's hot paths, which need not wait a turn for a few microseconds of work.
 */
export function hmacSha512Now(key: string | Uint8Array, data: string | Uint8Array): Uint8Array | undefined {
  return nodeCrypto?.createHmac('sha512', key).update(data).digest();
}

/** HMAC-SHA512 with any key; the primitive under both signature schemes and the tokens. */
export async function hmacSha512Bytes(key: string | Uint8Array, data: string | Uint8Array): Promise<Uint8Array> {
  return hmacSha512Now(key, data) ?? webHmac(key, data);
}

/** `hmacSha512Hex` at once, where node:crypto is there; undefined elsewhere. */
function hmacSha512HexNow(key: string | Uint8Array, data: string | Uint8Array): string | undefined {
  return nodeCrypto?.createHmac('sha512', key).update(data).digest('hex');
}

/** Lowercase hex HMAC-SHA512 with any key. */
export async function hmacSha512Hex(key: string | Uint8Array, data: string | Uint8Array): Promise<string> {
  return hmacSha512HexNow(key, data) ?? toHex(await webHmac(key, data));
}

/**
 * The request signature: lowercase hex HMAC-SHA512 of exactly these body bytes, sent as
 * `Authorization: Bearer <signature>`. Sign the string you send, not an object you serialise again.
 */
export async function signRequest(body: string | Uint8Array, privateKey: string): Promise<string> {
  requireKey(privateKey);
  return hmacSha512Hex(privateKey, body);
}

/** `signRequest` at once, where node:crypto is there (the service client's hot path); undefined elsewhere. */
export function signRequestNow(body: string | Uint8Array, privateKey: string): string | undefined {
  requireKey(privateKey);
  return hmacSha512HexNow(privateKey, body);
}

/** The bytes the v2 callback scheme signs: the `RequestTimestamp` header's text followed by the body. */
function callbackMessage(timestamp: string | number, body: string | Uint8Array): Uint8Array {
  const prefix = encoder.encode(String(timestamp));
  const rest = bytesOf(body);
  const message = new Uint8Array(prefix.length + rest.length);
  message.set(prefix, 0);
  message.set(rest, prefix.length);
  return message;
}

/** The callback signature, scheme v2: lowercase hex HMAC-SHA512 of `RequestTimestamp` + body. */
export async function signCallback(timestamp: string | number, body: string | Uint8Array, privateKey: string): Promise<string> {
  requireKey(privateKey);
  return hmacSha512Hex(privateKey, callbackMessage(timestamp, body));
}

export type HeaderSource = Headers | Record<string, string | readonly string[] | undefined>;

/** Reads a header whatever the container and the case of its name. */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(', ');
  }
  return undefined;
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

export type CallbackVerification =
  | { ok: true; timestamp: number }
  | { ok: false; reason: CallbackRejection; message: string };

/** Timestamps below this are seconds (1e11 seconds is the year 5138; 1e11 milliseconds is 1973). */
const SECONDS_LIMIT = 1e11;

function signatureCandidates(headers: HeaderSource): string[] {
  return ['Authorization', 'Signature']
    .map((name) => readHeader(headers, name)?.trim())
    .filter((value): value is string => value !== undefined && value.length > 0)
    .map((value) => value.replace(/^bearer\s+/i, '').trim());
}

/** Compares two byte strings in time that depends on their length only. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= (a[index] as number) ^ (b[index] as number);
  return difference === 0;
}

/**
 * Checks a callback the service sent: the v2 signature (in `Authorization` or `Signature`, with or without
 * `Bearer `), the `RequestTimestamp` (seconds or milliseconds) within the tolerance, and, when asked, the
 * `MerchantId`. Says why it rejected; never throws for anything the sender controls.
 */
export async function verifyCallback(options: VerifyCallbackOptions): Promise<CallbackVerification> {
  requireKey(options.privateKey);
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds <= 0) {
    throw new TypeError('toleranceSeconds must be a number of seconds greater than 0');
  }
  const reject = (reason: CallbackRejection, message: string): CallbackVerification => ({ ok: false, reason, message });

  const candidates = signatureCandidates(options.headers);
  if (candidates.length === 0) return reject('missing-signature', 'no Authorization or Signature header');
  const signatures = candidates.map(fromHex).filter((bytes): bytes is Uint8Array => bytes?.length === 64);
  if (signatures.length === 0) return reject('malformed-signature', 'the signature is not 128 hex digits');

  const timestampText = readHeader(options.headers, 'RequestTimestamp')?.trim();
  if (!timestampText) return reject('missing-timestamp', 'no RequestTimestamp header');
  if (!/^\d{1,16}$/.test(timestampText)) return reject('malformed-timestamp', 'RequestTimestamp is not a whole number');
  const raw = Number(timestampText);
  const timestamp = raw < SECONDS_LIMIT ? raw * 1000 : raw;
  const now = options.now instanceof Date ? options.now.getTime() : (options.now ?? Date.now());
  const toleranceMs = toleranceSeconds * 1000;
  if (Math.abs(now - timestamp) > toleranceMs) {
    return reject('stale-timestamp', `RequestTimestamp is more than ${toleranceMs / 1000} seconds from now`);
  }

  if (options.merchantId !== undefined && readHeader(options.headers, 'MerchantId')?.trim() !== options.merchantId) {
    return reject('merchant-mismatch', 'MerchantId is not this merchant');
  }

  const expected = await hmacSha512Bytes(options.privateKey, callbackMessage(timestampText, options.body));
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
 * Checks a request signature as the service does: `Authorization: Bearer <signature>` over the raw bytes
 * received, compared in constant time. The sandbox uses it; so can anyone who receives signed requests.
 */
export async function verifyRequest(options: VerifyRequestOptions): Promise<boolean> {
  requireKey(options.privateKey);
  const token = /^Bearer\s+(\S+)$/i.exec(options.authorization?.trim() ?? '')?.[1];
  if (!token) return false;
  if (options.publicKey !== undefined && constantTimeEqual(encoder.encode(token), encoder.encode(options.publicKey))) return true;
  const given = fromHex(token);
  if (given?.length !== 64) return false;
  const expected = await hmacSha512Bytes(options.privateKey, options.body);
  return constantTimeEqual(given, expected);
}

/** UTF-8 text of a body, or undefined when its bytes are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}
