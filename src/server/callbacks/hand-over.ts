/**
 * An outcome handed to the merchant's `onCallback` once: claimed in the callback store under one key per order and
 * settled status (any other status per `notifyId`), whichever way it came — the service's callback (receiver.ts) or
 * the kit's own status query (src/server/reconciliation) — and recorded once the hook returned. Anything but a handed
 * over outcome leaves it to come again: a failed hook releases the claim, a busy one is answered "later".
 */
import { isTerminalStatus, type CallbackBody, type PaymentStatus } from '../../core/index.js';
import type { CheckoutOf } from '../checkouts/walk.js';
import { errorMessage, logValue, type Logger } from '../http/http.js';
import { elapsed, type CallbackTrace } from '../observability/channels.js';
import type { CallbackClaim, CallbackStore } from '../stores/callbacks/port.js';
import { STORE_KEYS } from '../stores/keys.js';
import { StoreUnavailableError } from '../stores/shared.js';

/** An outcome handed to `onCallback` once per order and status (once per `notifyId` for any other status). */
export interface CallbackEvent {
  /**
   * `callback`: the service's signed callback brought it. `reconciliation`: the kit's own status query found it,
   * its callback late or lost; then `notifyId` is `reconciled:<orderNo>:<status>`, `raw` the query's `data` as
   * JSON, `timestamp` when the kit found it, and `body` holds what the query told (its `extras` are absent).
   */
  source: 'callback' | 'reconciliation';
  /**
   * The outcome's one key, the same whichever way it came (the service's callback, or the kit's reconciliation):
   * `outcome:<orderNo>:<status>` for a settled status (`SUCCESS`, `FAIL`, `CLOSE`); for any other status, which only
   * a callback brings, `notify:<notifyId>`. The kit hands each key to `onCallback` once (it claims the outcome under
   * it); record what you do under it, unique, in your own database, so that the rare repeat (docs/reliability.md,
   * "When an outcome can still arrive twice") changes nothing.
   */
  outcomeKey: string;
  /** The service's notification id (a callback's); `reconciled:<orderNo>:<status>` for a reconciled outcome. */
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
 * status, whichever callback (or status query) brought it; any other status per `notifyId`, in a space of its own
 * (src/server/stores/keys.ts): a notifyId spelled as an outcome's key never marks that outcome handled.
 */
export function outcomeKey(orderNo: string, status: PaymentStatus, notifyId: string): string {
  return isTerminalStatus(status) ? STORE_KEYS.outcome(orderNo, status) : STORE_KEYS.notification(notifyId);
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
      // The key the shop records its fulfilment under is the one the kit claimed, by construction.
      const prepared = { ...(options.prepare ? await options.prepare(event) : event), outcomeKey: key };
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
