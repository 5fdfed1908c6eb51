/**
 * The callback route: the service's signed notification of a status change, verified, de-duplicated and handed
 * to the merchant's `onCallback` once. Anything but a 2xx makes the service send it again, so an answer other
 * than 200 means "not handled yet", never "lost".
 *
 * The same hand-over serves the outcomes the kit's own status queries find (reconciliation.ts): an order's
 * outcome is claimed under one key whichever way it came, so the shop hears of each payment once.
 */
import { CALLBACK_BODY, isTerminalStatus, parseJson, successEnvelope, validate, type CallbackBody, type PaymentStatus } from '../core/index.js';
import { StoreUnavailableError, type CallbackClaim, type CallbackStore } from './callback-store.js';
import type { CheckoutStore } from './checkout-store.js';
import { checkoutOfCallback, type CheckoutOf } from './checkouts.js';
import { callbackChannel, elapsed, listened, traced, type CallbackTrace } from './diagnostics.js';
import { envelope, errorMessage, logValue, problem, type Logger } from './http.js';
import { decodeUtf8, verifyCallback } from './signature.js';

/** An outcome handed to `onCallback` once per order and status (once per `notifyId` for any other status). */
export interface CallbackEvent {
  /**
   * `callback`: the service's signed callback brought it. `reconciliation`: the kit's own status query found it,
   * its callback late or lost; then `notifyId` is `reconciled:<orderNo>:<status>`, `raw` the query's `data` as
   * JSON, `timestamp` when the kit found it, and `body` holds what the query told (its `extras` are absent).
   */
  source: 'callback' | 'reconciliation';
  notifyId: string;
  /** The body, validated; `amount.total` is a number whatever the service sent. */
  body: CallbackBody & { amount: { total: number; currency: string } };
  /** The body exactly as received and signed. */
  raw: string;
  /** `RequestTimestamp`, in milliseconds. */
  timestamp: number;
  /**
   * The order's checkout (its cart's reference), attempt, and the amount the checkout was opened for, when the kit
   * made the order from a checkout token; on a payment, `alsoPaid` names other attempts of the same checkout the
   * service says are paid too — a second payment of one cart (an order the payer left, paid after all), for the shop
   * to refund (docs/one-payment.md). Mark a cart paid only when `body.amount` is `checkout.amount` and the cart's own.
   */
  checkout?: CheckoutOf | undefined;
}

/**
 * The key an outcome is claimed under: a settled order's status is final, so it is claimed per order and
 * status, whichever callback (or status query) brought it; any other status per `notifyId`.
 */
export function outcomeKey(orderNo: string, status: PaymentStatus, notifyId: string): string {
  return isTerminalStatus(status) ? `outcome:${orderNo}:${status}` : notifyId;
}

/** What a hand-over came to. */
export type HandOverResult = 'handled' | 'duplicate' | 'busy' | 'failed' | 'unavailable';

export interface HandOverOptions {
  store: CallbackStore;
  logger: Logger;
  onCallback?: ((event: CallbackEvent) => void | Promise<void>) | undefined;
  /** The order's outcome reached the shop (now or before): the kit stops asking the service about it. Must not throw. */
  onSettled?: ((event: CallbackEvent) => void) | undefined;
  /** What the event carries besides the service's words (a payment's other paid attempts), found once it is claimed. */
  prepare?: ((event: CallbackEvent) => Promise<CallbackEvent>) | undefined;
  /** The kit's clock, for the lag from a callback's `timestamp` to its hand-over (svc-checkout:callback). */
  now?: (() => number) | undefined;
}

/**
 * Hands an outcome over; with `trace` (someone listens to svc-checkout:callback), notes there how long `onCallback`
 * took, how long after the payment it ran, and what came of it.
 */
export type Deliver = (event: CallbackEvent, trace?: CallbackTrace) => Promise<HandOverResult>;

/** Claims the outcome, runs `onCallback`, and records that it ran: exactly once across processes. */
export function handOver(options: HandOverOptions): Deliver {
  const deliver = claimAndHandle(options);
  const now = options.now ?? Date.now;
  return async (event, trace) => {
    if (!trace) return deliver(event);
    const result = await deliver(event, trace);
    trace.outcome = result;
    if (result === 'handled' && trace.eventAt !== undefined) trace.lagMs = Math.max(0, now() - trace.eventAt);
    return result;
  };
}

function claimAndHandle(options: HandOverOptions): (event: CallbackEvent, trace?: CallbackTrace) => Promise<HandOverResult> {
  const { store, logger } = options;
  const settled = (event: CallbackEvent) => {
    if (isTerminalStatus(event.body.status)) options.onSettled?.(event);
  };
  return async function deliver(event, trace) {
    const key = outcomeKey(event.body.orderNo, event.body.status, event.notifyId);
    let claim: CallbackClaim;
    try {
      claim = await store.claim(key);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return 'unavailable';
      throw error;
    }
    if (claim !== 'new' && claim !== 'busy' && claim !== 'done') {
      throw new TypeError(`callbackStore.claim answered ${String(claim)}, not 'new', 'busy' or 'done'`);
    }
    if (claim === 'done') {
      settled(event);
      return 'duplicate';
    }
    if (claim === 'busy') return 'busy';
    try {
      const prepared = options.prepare ? await options.prepare(event) : event;
      const handling = trace && options.onCallback ? performance.now() : undefined;
      try {
        await options.onCallback?.(prepared);
      } finally {
        if (trace && handling !== undefined) trace.handlerMs = elapsed(handling);
      }
    } catch (error) {
      // A release that cannot reach the store leaves the claim to its lease: the next delivery after it is handled.
      await Promise.resolve(store.release(key)).catch((releaseError: unknown) => {
        if (!(releaseError instanceof StoreUnavailableError)) throw releaseError;
      });
      logger.error(`svc-checkout: onCallback failed for ${event.source === 'callback' ? 'notifyId' : 'the outcome of order'} ${logValue(event.source === 'callback' ? event.notifyId : event.body.orderNo)}: ${errorMessage(error)}`);
      return 'failed';
    }
    // It was handled: acknowledged even when the store cannot record it now (a shared store writes it when it can).
    await Promise.resolve(store.complete(key)).catch((completeError: unknown) => {
      if (!(completeError instanceof StoreUnavailableError)) throw completeError;
    });
    settled(event);
    return 'handled';
  };
}

export interface CallbackReceiverOptions extends HandOverOptions {
  merchantId: string;
  privateKey: string;
  /** What the kit knows of each checkout's attempts: what an attempt was made for, for a callback to a webhook. */
  checkoutStore: CheckoutStore;
  toleranceSeconds: number;
  now: () => number;
  /** A verified callback's status, before it is handed over (the status streams hear of it). Must not throw. */
  onVerified?: ((event: CallbackEvent) => void) | undefined;
}

const retryLater = (message: string) => problem(503, message, {}, { 'Retry-After': '10' });

export function callbackReceiver(options: CallbackReceiverOptions): (request: Request, body: Uint8Array) => Promise<Response> {
  const { logger } = options;
  const deliver = handOver(options);

  async function receive(request: Request, body: Uint8Array, trace?: CallbackTrace): Promise<Response> {
    const verification = await verifyCallback({
      headers: request.headers,
      body,
      privateKey: options.privateKey,
      merchantId: options.merchantId,
      now: options.now(),
      toleranceSeconds: options.toleranceSeconds,
    });
    if (trace) trace.verified = verification.ok;
    if (!verification.ok) {
      logger.warn(`svc-checkout: callback rejected: ${verification.reason}`);
      if (trace) Object.assign(trace, { outcome: 'rejected', reason: verification.reason });
      return problem(401, `callback rejected: ${verification.message}`, { reason: verification.reason });
    }
    const raw = decodeUtf8(body);
    const parsed = raw === undefined ? undefined : parseJson(raw);
    const checked = parsed?.ok ? validate<CallbackEvent['body']>(CALLBACK_BODY, parsed.value) : undefined;
    if (!checked?.ok) {
      if (trace) trace.outcome = 'invalid';
      if (!checked) return problem(400, 'the callback body is not JSON');
      const broken = checked.violations.map((violation) => `${violation.field} (${violation.rule})`).join(', ');
      logger.warn(`svc-checkout: a signed callback breaks the specification and was refused: ${broken}`);
      return problem(400, 'the callback body breaks the specification', { errors: checked.violations });
    }
    const callback = checked.value;
    if (trace) {
      Object.assign(trace, { notifyId: callback.notifyId, orderNo: callback.orderNo, reference: callback.reference, status: callback.status });
      const eventAt = Number(callback.timestamp);
      if (Number.isSafeInteger(eventAt)) trace.eventAt = eventAt;
    }
    const checkout = await checkoutOfCallback(request.url, callback.reference, options.privateKey, options.checkoutStore);
    const event: CallbackEvent = { source: 'callback', notifyId: callback.notifyId, body: callback, raw: raw!, timestamp: verification.timestamp, ...(checkout ? { checkout } : {}) };
    // The payer learns a verified status at once, whether or not the shop's hook has run (or can run now).
    options.onVerified?.(event);
    switch (await deliver(event, trace)) {
      case 'handled':
        return envelope(successEnvelope({ duplicate: false }));
      case 'duplicate':
        return envelope(successEnvelope({ duplicate: true }));
      // Acknowledging it now would lose it if the handling under way fails: the service will send it again.
      case 'busy':
        return retryLater('this callback is being handled; send it again later');
      case 'unavailable':
        return retryLater('callbacks cannot be handled at the moment; send it again later');
      case 'failed':
        return problem(500, 'the callback could not be handled; the service will send it again');
    }
  }

  return function receiveCallback(request, body) {
    if (!listened(callbackChannel)) return receive(request, body);
    const trace: CallbackTrace = { source: 'callback' };
    const started = performance.now();
    return traced(callbackChannel, trace, async () => {
      try {
        return await receive(request, body, trace);
      } finally {
        trace.durationMs = elapsed(started);
      }
    });
  };
}
