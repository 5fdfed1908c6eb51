/**
 * The service's side of the signing contract (src/core/signing.ts): HMAC-SHA512 with node:crypto, which the sandbox
 * (a Node program) always has. It checks what merchants sign and signs the callbacks it sends them.
 */
import { createHmac } from 'node:crypto';
import { signCallbackWith, verifyRequestWith, type Hmac, type VerifyRequestOptions } from '../core/signing.js';

const hmac: Hmac = (key, data) => createHmac('sha512', key).update(data).digest();

export const signCallback = (timestamp: string | number, body: string | Uint8Array, privateKey: string): Promise<string> =>
  signCallbackWith(hmac, timestamp, body, privateKey);

export const verifyRequest = (options: VerifyRequestOptions): Promise<boolean> => verifyRequestWith(hmac, options);
