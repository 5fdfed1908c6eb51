/**
 * An order's own calls from its page (`/payments/otp`, `/payments/pin`, `/payments/otp/resend`): the order and its
 * country from the order token, from the body only the code. A code is counted against the order's limit of wrong
 * codes before it is sent (codes sent all at once are counted too) and given back when the service took it or never
 * judged it.
 */
import { isPlainObject, isSuccess, ORDER_TOKEN_HEADER, SERVICE_OPERATIONS } from '../../core/index.js';
import { envelopeAnswer as envelope, logValue, webRequestOf } from '../http/http.js';
import { giveBack, throttle, tooMany } from '../limits/throttle.js';
import type { AbortSignalLike } from '../service/transport.js';
import { invalid, notAnObject, type PaymentContext, type Route } from './context.js';

/**
 * `acted`: the payer acted on the order (a code the service took, a code sent again): the streams of it poll briskly
 * (src/server/streams/pace.ts), in whichever process they are.
 */
export function codeRoute(context: PaymentContext, operation: 'otp' | 'pin' | 'resendOtp', acted?: (order: { orderNo: string; reference: string }) => void): Route {
  const { config, client } = context;
  const field = operation === 'resendOtp' ? undefined : operation;
  const send = {
    otp: (body: never, signal: AbortSignalLike) => client.submitOtp(body, { signal }),
    pin: (body: never, signal: AbortSignalLike) => client.submitPin(body, { signal }),
    resendOtp: (body: never, signal: AbortSignalLike) => client.resendOtp(body, { signal }),
  }[operation];
  return async (value, request) => {
    if (!isPlainObject(value)) return notAnObject();
    const proof = await context.orderProof(request.headers.get(ORDER_TOKEN_HEADER));
    if (!proof.ok) return proof.response;
    const { orderNo, country, reference } = proof.claims;
    const body: Record<string, unknown> = { country, orderNo, ...(field ? { [field]: value[field] } : {}) };
    const orderKey = `${config.credentials.merchantId}:${orderNo}`;
    if (field) {
      // A code that is not one (letters, too short) is the payer's typo, told at once: it spends no attempt.
      const checked = SERVICE_OPERATIONS[field === 'otp' ? 'inputOtp' : 'inputPin'].check(body);
      if (!checked.ok) return invalid(...checked.violations);
    }
    const throttled = await throttle(config.stores.throttle, config.limits, [[field ? 'wrongCodesPerOrder' : 'resendOtp', orderKey]]);
    if (throttled) {
      if (field) config.logger.warn(`svc-checkout: a code for order ${logValue(orderNo)} was refused by the wrongCodesPerOrder limit`);
      return tooMany(throttled);
    }
    if (config.authorizeAction) {
      const allowed = await context.hook(() => config.authorizeAction!(operation, body, webRequestOf(request)));
      if (!allowed.ok) {
        if (field) await giveBack(config.stores.throttle, config.limits, 'wrongCodesPerOrder', orderKey);
        return allowed.response;
      }
    }
    const answer = await context.callService(operation, () => send(body as never, request.signal));
    // Wrong is what the service answered other than a success; `50003` is a service that judged nothing.
    const wrong = !isSuccess(answer) && answer.code !== '50003';
    if (field && !wrong) await giveBack(config.stores.throttle, config.limits, 'wrongCodesPerOrder', orderKey);
    if (isSuccess(answer)) acted?.({ orderNo, reference });
    return envelope(answer);
  };
}
