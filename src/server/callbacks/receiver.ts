/**
 * The callback route: the service's signed notification of a status change, verified, then handed to the merchant's
 * `onCallback` once (hand-over.ts). Anything but a 2xx makes the service send it again, so an answer other than 200
 * means "not handled yet", never "lost".
 */
import { CALLBACK_BODY, decodeUtf8, parseJson, successEnvelope, validate } from '../../core/index.js';
import type { CheckoutStore } from '../stores/checkouts/port.js';
import { checkoutOfCallback } from '../checkouts/walk.js';
import { callbackChannel, elapsed, listened, traced, type CallbackTrace } from '../observability/channels.js';
import { envelope, problem } from '../http/http.js';
import { verifyCallback } from '../runtime/signature.js';
import { handOver, outcomeKey, type CallbackEvent, type HandOverOptions } from './hand-over.js';
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
    const event: CallbackEvent = {
      source: 'callback',
      outcomeKey: outcomeKey(callback.orderNo, callback.status, callback.notifyId),
      notifyId: callback.notifyId,
      body: callback,
      raw: raw!,
      timestamp: verification.timestamp,
      ...(checkout ? { checkout } : {}),
    };
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
