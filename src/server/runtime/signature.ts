/**
 * The kit's HMAC-SHA512, and the signing contract (src/core/signing.ts) bound to it: computed with node:crypto where
 * the runtime has it (a few microseconds, in the same tick) and with WebCrypto anywhere else, so that the kit runs on
 * Node, serverless and edge runtimes alike; modules.ts decides which, once.
 */
import {
  requireKey,
  signCallbackWith,
  signRequestWith,
  toHex,
  utf8Bytes,
  verifyCallbackWith,
  verifyRequestWith,
  type CallbackVerification,
  type VerifyCallbackOptions,
  type VerifyRequestOptions,
} from '../../core/signing.js';
import { nodeCrypto } from './modules.js';

export {
  constantTimeEqual,
  decodeUtf8,
  readHeader,
  type CallbackRejection,
  type CallbackVerification,
  type HeaderSource,
  type VerifyCallbackOptions,
  type VerifyRequestOptions,
} from '../../core/signing.js';

const encoder = new TextEncoder();

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
  return hmac(cryptoKey, utf8Bytes(data));
}

/** HMAC-SHA512 from node:crypto, where it is there; undefined elsewhere (WebCrypto's is asynchronous). */
function hmacSha512Now(key: string | Uint8Array, data: string | Uint8Array): Uint8Array | undefined {
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
  return hmacSha512HexNow(privateKey, body) ?? signRequestWith(hmacSha512Bytes, body, privateKey);
}

/** The callback signature, scheme v2: lowercase hex HMAC-SHA512 of `RequestTimestamp` + body. */
export function signCallback(timestamp: string | number, body: string | Uint8Array, privateKey: string): Promise<string> {
  return signCallbackWith(hmacSha512Bytes, timestamp, body, privateKey);
}

/**
 * Checks a callback the service sent: the v2 signature (in `Authorization` or `Signature`, with or without
 * `Bearer `), the `RequestTimestamp` (seconds or milliseconds) within the tolerance, and, when asked, the
 * `MerchantId`. Says why it rejected; never throws for anything the sender controls.
 */
export function verifyCallback(options: VerifyCallbackOptions): Promise<CallbackVerification> {
  return verifyCallbackWith(hmacSha512Bytes, options);
}

/**
 * Checks a request signature as the service does: `Authorization: Bearer <signature>` over the raw bytes
 * received, compared in constant time. For anyone who receives signed requests (the sandbox checks them with the same rules, src/core/signing.ts).
 */
export function verifyRequest(options: VerifyRequestOptions): Promise<boolean> {
  return verifyRequestWith(hmacSha512Bytes, options);
}
