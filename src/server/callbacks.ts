/**
 * The callback route: the service's signed notification of a status change, verified, de-duplicated by
 * `notifyId` and handed to the merchant's `onCallback` once. Anything but a 2xx makes the service send it
 * again, so an answer other than 200 means "not handled yet", never "lost".
 */
import { CALLBACK_BODY, parseJson, successEnvelope, validate, type CallbackBody } from '../core/index.js';
import { StoreUnavailableError, type CallbackClaim, type CallbackStore } from './callback-store.js';
import { envelope, errorMessage, logValue, problem, type Logger } from './http.js';
import { decodeUtf8, verifyCallback } from './signature.js';

/** A verified callback, handed to `onCallback` once per `notifyId`. */
export interface CallbackEvent {
  notifyId: string;
  /** The body, validated; `amount.total` is a number whatever the service sent. */
  body: CallbackBody & { amount: { total: number; currency: string } };
  /** The body exactly as received and signed. */
  raw: string;
  /** `RequestTimestamp`, in milliseconds. */
  timestamp: number;
}

export interface CallbackReceiverOptions {
  merchantId: string;
  privateKey: string;
  store: CallbackStore;
  toleranceSeconds: number;
  now: () => number;
  logger: Logger;
  onCallback?: ((event: CallbackEvent) => void | Promise<void>) | undefined;
  /** Runs after `onCallback` succeeded, before the answer (the status streams hear of it). Must not throw. */
  onHandled?: ((event: CallbackEvent) => void) | undefined;
}

/** Not handled now, not lost: the service sends it again. */
const notNow = () => problem(503, 'callbacks cannot be handled at the moment; send it again later', {}, { 'Retry-After': '10' });

export function callbackReceiver(options: CallbackReceiverOptions): (request: Request, body: Uint8Array) => Promise<Response> {
  const { store, logger } = options;
  return async function receiveCallback(request, body) {
    const verification = await verifyCallback({
      headers: request.headers,
      body,
      privateKey: options.privateKey,
      merchantId: options.merchantId,
      now: options.now(),
      toleranceSeconds: options.toleranceSeconds,
    });
    if (!verification.ok) {
      logger.warn(`svc-checkout: callback rejected: ${verification.reason}`);
      return problem(401, `callback rejected: ${verification.message}`, { reason: verification.reason });
    }
    const raw = decodeUtf8(body);
    const parsed = raw === undefined ? undefined : parseJson(raw);
    if (raw === undefined || !parsed?.ok) return problem(400, 'the callback body is not JSON');
    const checked = validate<CallbackEvent['body']>(CALLBACK_BODY, parsed.value);
    if (!checked.ok) {
      const broken = checked.violations.map((violation) => `${violation.field} (${violation.rule})`).join(', ');
      logger.warn(`svc-checkout: a signed callback breaks the specification and was refused: ${broken}`);
      return problem(400, 'the callback body breaks the specification', { errors: checked.violations });
    }
    const callback = checked.value;
    let claim: CallbackClaim;
    try {
      claim = await store.claim(callback.notifyId);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return notNow();
      throw error;
    }
    if (claim !== 'new' && claim !== 'busy' && claim !== 'done') {
      throw new TypeError(`callbackStore.claim answered ${String(claim)}, not 'new', 'busy' or 'done'`);
    }
    if (claim === 'done') return envelope(successEnvelope({ duplicate: true }));
    // Acknowledging it now would lose it if the handling under way fails: the service will send it again.
    if (claim === 'busy') return problem(503, 'this callback is being handled; send it again later', {}, { 'Retry-After': '10' });
    const event: CallbackEvent = { notifyId: callback.notifyId, body: callback, raw, timestamp: verification.timestamp };
    try {
      await options.onCallback?.(event);
    } catch (error) {
      // A release that cannot reach the store leaves the claim to its lease: the next delivery after it is handled.
      await Promise.resolve(store.release(callback.notifyId)).catch((releaseError: unknown) => {
        if (!(releaseError instanceof StoreUnavailableError)) throw releaseError;
      });
      logger.error(`svc-checkout: onCallback failed for notifyId ${logValue(callback.notifyId)}: ${errorMessage(error)}`);
      return problem(500, 'the callback could not be handled; the service will send it again');
    }
    // It was handled: acknowledged even when the store cannot record it now (its claim then runs out on its own).
    await Promise.resolve(store.complete(callback.notifyId)).catch((completeError: unknown) => {
      if (!(completeError instanceof StoreUnavailableError)) throw completeError;
    });
    options.onHandled?.(event);
    return envelope(successEnvelope({ duplicate: false }));
  };
}
