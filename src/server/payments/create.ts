/**
 * The create (`POST /payments`): which order it is — the checkout token's, with the payer's fields of the body and
 * nothing else of it (or, with orders from `authorize` or the browser, the body's) — validated once, counted against
 * the limits, made the checkout's next attempt (src/server/checkouts), seen by the merchant's `authorize`, then sent.
 */
import {
  ATTEMPT_NOTE_FIELD,
  attemptNoteOfOrder,
  attemptOf,
  attemptReference,
  CHECKOUT_TOKEN_HEADER,
  DEFAULT_ATTEMPTS,
  errorEnvelope,
  EXPIRES_IN_HEADER,
  isDuplicateReference,
  isPayMethod,
  isPlainObject,
  isSuccess,
  LEAVING_FIELD,
  MAX_ATTEMPTS,
  ORDER_TOKEN_HEADER,
  PAYER_FIELDS,
  TICKET_HEADER,
  typedContact,
  validateCreateRequest,
  type Amount,
  type CashierStatusData,
  type CheckoutTokenClaims,
  type CreatePaymentData,
  type CreatePaymentRequest,
  type Envelope,
} from '../../core/index.js';
import { callbackUrlOf, judge, walkCheckout, type AskStatus, type Judged } from '../checkouts/walk.js';
import { envelopeAnswer as envelope, errorMessage, isAbort, logValue, webRequestOf, type Answer, type KitRequest } from '../http/http.js';
import { throttle, tooMany } from '../limits/throttle.js';
import { ServiceError } from '../service/client.js';
import type { AbortSignalLike } from '../service/transport.js';
import type { CheckoutRecord } from '../stores/checkouts/port.js';
import { StoreUnavailableError } from '../stores/shared.js';
import { browserOrders } from './browser-order.js';
import { invalid, notAnObject, refused, type PaymentContext, type Route } from './context.js';
import type { Tickets } from './tickets.js';
import { emailKeyOf, phoneKeyOf } from './recipients.js';
import { openPayerContact, type PayerContact } from '../tokens/contact.js';
import { amountOfData, orderLearnt, type CreatedOrder } from './learn.js';

export { amountOfData, type CreatedOrder } from './learn.js';

export interface CreateRouteOptions {
  /** The kit's own callback URL for an order made through this request, when the token names none. */
  callbackUrlFor(request: KitRequest): string | undefined;
  /**
   * Sees every order the service created and left pending, and every attempt of a checkout a create's look at it found
   * (reconciliation keeps each until it settles).
   */
  observeCreated?: ((order: CreatedOrder) => void) | undefined;
  /** The tickets the isolated frame's creates carry where no checkout token decides the order (tickets.ts). */
  tickets: Tickets;
}

/**
 * The notice of a reference code, filled from the contact the shop has on file (the token's sealed `payerContact`),
 * whole or not at all: when the payer typed none of the notice's contact fields, the name, the email when the code goes
 * by email, the mobile number when by SMS; when they typed any, none (so that the shop's name of the payer never goes to
 * an address the payer typed, nor a typed name to the shop's address). Checked afterwards with the same rules as a typed
 * contact (validateCreateRequest): a field still missing is refused naming it.
 */
function fillNotice(order: Record<string, unknown>, payer: PayerContact): boolean {
  const notify: Record<string, unknown> = isPlainObject(order['notify']) ? { ...order['notify'] } : {};
  if (typedContact(notify)) return false;
  const channel = typeof notify['notifyMethod'] === 'string' && notify['notifyMethod'] !== '' ? notify['notifyMethod'] : 'BOTH';
  if (payer.name) notify['notifyUserName'] = payer.name;
  if (payer.email && channel !== 'SMS') notify['notifyUserEmail'] = payer.email;
  if (payer.phone && channel !== 'EMAIL') notify['notifyUserMobile'] = payer.phone;
  order['notify'] = notify;
  return true;
}

/** An amount as a log line says it: `12500 EGP`. */
const amountText = (amount: Amount | undefined) => (amount ? `${amount.total} ${amount.currency}` : 'an amount not told');

export function createRoute(context: PaymentContext, options: CreateRouteOptions): Route {
  const { config, client } = context;
  const { credentials, logger } = config;
  const warn = (message: string) => logger.warn(message);
  const { orderOf: orderFromBrowser, returnUrlViolation } = browserOrders(context, options.callbackUrlFor);

  /**
   * The order a checkout token decides, with the payer's fields of the body and nothing else of it. The body's
   * reference, when it names one, must be an attempt of the token's checkout: which attempt is made is the kit's to
   * decide (src/server/checkouts), and the element's is only where the kit starts asking.
   */
  function orderFromToken(claims: CheckoutTokenClaims, body: Record<string, unknown>, request: KitRequest): { order?: unknown; attempt?: number; refusal?: Answer } {
    const method = body['payMethod'];
    if (isPayMethod(method) && claims.methods && !claims.methods.includes(method)) {
      return { refusal: invalid({ field: 'payMethod', rule: 'offered', message: `payMethod ${method} is not offered in this checkout` }) };
    }
    const reference = body['reference'] === undefined ? claims.reference : body['reference'];
    const attempt = typeof reference === 'string' ? attemptOf(claims.reference, reference, MAX_ATTEMPTS) : undefined;
    if (attempt === undefined) return { refusal: refused('reference') };
    // Written field by field (a spread of a built object makes a slow one, and this is every create's path).
    const order: Record<string, unknown> = {};
    if (isPayMethod(method)) for (const field of PAYER_FIELDS[method]) if (Object.hasOwn(body, field)) order[field] = body[field];
    order['payMethod'] = method;
    order['reference'] = attemptReference(claims.reference, attempt);
    order['amount'] = claims.amount;
    order['country'] = claims.country;
    order['product'] = claims.product;
    order['expireAt'] = claims.expireAt;
    if (method === 'ReferenceCode') order['merchantName'] = claims.merchantName ?? config.merchantName;
    if (claims.returnUrl && method === 'BankAccount') order['returnUrl'] = claims.returnUrl;
    // Its own address, for now: the attempt's, with the checkout and what it was opened for, once the kit chose it.
    order['callbackUrl'] = claims.callbackUrl ?? options.callbackUrlFor(request);
    return { order, attempt };
  }

  /** Writes to the checkout store; a store that cannot be reached costs status queries later, never a payment. */
  const noteCheckout = (write: () => void | Promise<void>) =>
    Promise.resolve()
      .then(write)
      .catch((error: unknown) => {
        if (!(error instanceof StoreUnavailableError)) warn(`svc-checkout: the checkout store could not be written: ${errorMessage(error)}`);
      });

  /**
   * A status query by reference for a create, sent at once (never shared: a create judges what the service says now).
   * An attempt it finds is kept for reconciliation with its checkout, as any status answer's order is.
   */
  const askNow =
    (claims: CheckoutTokenClaims, signal: AbortSignalLike): AskStatus =>
    async (reference) => {
      let answer: Envelope<CashierStatusData>;
      try {
        answer = await client.send<CashierStatusData>('status', { country: claims.country, reference }, { signal, retries: 0 });
      } catch (error) {
        if (error instanceof ServiceError || isAbort(error)) return errorEnvelope('50003') as Envelope<CashierStatusData>;
        throw error;
      }
      if (options.observeCreated) {
        const attempt = attemptOf(claims.reference, reference, MAX_ATTEMPTS);
        const checkout = attempt === undefined ? undefined : { reference: claims.reference, attempt };
        const learnt = orderLearnt(claims.country, answer, { reference, expireAt: claims.expireAt, amount: claims.amount, checkout });
        if (learnt) options.observeCreated(learnt);
      }
      return answer;
    };

  /** The answer of a create that makes no order: the checkout's payment, or the order in progress, or a cart that changed. */
  async function existingAnswer(claims: CheckoutTokenClaims, judged: Judged, record: CheckoutRecord | undefined): Promise<Answer> {
    const shown = judged.shown!;
    if (judged.state === 'changed') {
      logger.warn(`svc-checkout: no payment of checkout ${logValue(claims.reference)} for ${amountText(claims.amount)}: it was paid at ${amountText(amountOfData(shown.data))} (${logValue(shown.reference)})`);
      return envelope({ ...errorEnvelope('CHECKOUT_CHANGED'), data: shown.data });
    }
    logger.warn(`svc-checkout: no new attempt of checkout ${logValue(claims.reference)}: ${logValue(shown.reference)} is ${shown.data.status}`);
    const headers: Record<string, string> = {};
    if (shown.data.orderNo) {
      headers[ORDER_TOKEN_HEADER] = await context.orderTokenFor({ orderNo: String(shown.data.orderNo), reference: shown.reference, country: claims.country }, claims.expireAt);
    }
    // Which payment it is, as the kit noted it when that attempt was made: this checkout's own record, never another's.
    const note = shown.data.status === 'PENDING' && !shown.legacy ? record?.notes?.[shown.attempt] : undefined;
    return envelope({ ...errorEnvelope('ORDER_EXISTS'), data: note ? { ...shown.data, [ATTEMPT_NOTE_FIELD]: note } : shown.data }, headers);
  }

  /**
   * The order a create sends as attempt `attempt` of its checkout: the attempt's reference, and the kit's callback
   * address with the checkout, the attempt and the amount it was opened for (under the kit's tag); noted in the
   * checkout store before it is forwarded.
   */
  async function makeAttempt(order: CreatePaymentRequest, claims: CheckoutTokenClaims, attempt: number, kitCallbackUrl: string | undefined): Promise<void> {
    const made = order as { reference: string; callbackUrl?: string | undefined };
    made.reference = attemptReference(claims.reference, attempt);
    const callbackUrl = await callbackUrlOf(kitCallbackUrl, credentials.privateKey, claims.reference, attempt, claims.amount);
    if (callbackUrl === undefined) delete made.callbackUrl;
    else made.callbackUrl = callbackUrl;
    // Which payment it is, when the order tells (a terminal, an account's ending): kept with it, in the same write.
    const note = attemptNoteOfOrder(order);
    await noteCheckout(() => config.stores.checkouts.forwarding(claims.reference, attempt, claims.amount, note));
  }

  /** Which attempt a create of this checkout makes, or what it answers instead. */
  async function nextAttempt(
    claims: CheckoutTokenClaims,
    hint: number,
    leaving: boolean,
    signal: AbortSignalLike,
    guessFirst: boolean,
  ): Promise<{ attempt: number } | { answer: Answer; unknown?: true }> {
    const walk = await walkCheckout(claims.reference, { ask: askNow(claims, signal), store: config.stores.checkouts, hint, guessFirst, recount: !guessFirst, warn });
    // No answer from the service about an earlier attempt: no order either.
    if (typeof walk === 'string') return { answer: envelope(errorEnvelope('50003')), unknown: true };
    const judged = judge(walk, claims.amount, leaving);
    if (judged.shown) return { answer: await existingAnswer(claims, judged, walk.record) };
    const allowed = claims.attempts ?? DEFAULT_ATTEMPTS;
    if (judged.next > allowed) {
      logger.warn(`svc-checkout: checkout ${logValue(claims.reference)} has no attempt left (${allowed} ended unpaid)`);
      return { answer: envelope(errorEnvelope('ATTEMPTS_EXHAUSTED')) };
    }
    return { attempt: judged.next };
  }

  /** The order the body proposes, from the checkout token or as the browser sent it. */
  async function proposal(value: Record<string, unknown>, request: KitRequest) {
    if (config.orderSource !== 'checkout-token') {
      // The isolated frame's create, proved by the ticket its page asked for: the order the kit decided then.
      const ticket = request.headers.get(TICKET_HEADER);
      if (ticket === null) return { order: orderFromBrowser(value, request), attempt: 1 };
      const redeemed = await options.tickets.redeem(ticket, value);
      return 'refusal' in redeemed ? { refusal: redeemed.refusal } : { order: redeemed.order as unknown, attempt: 1, ticket: redeemed.id };
    }
    const proof = await context.checkoutProof(request.headers.get(CHECKOUT_TOKEN_HEADER));
    if (!proof.ok) return { refusal: proof.response };
    const built = orderFromToken(proof.claims, value, request);
    if (built.refusal) return { refusal: built.refusal };
    if (proof.claims.payerContact !== undefined && (built.order as Record<string, unknown>)['payMethod'] === 'ReferenceCode') {
      const payer = await openPayerContact(credentials.privateKey, proof.claims);
      if (payer === 'forged') return { refusal: refused('forged') };
      const filled = payer ? fillNotice(built.order as Record<string, unknown>, payer) : false;
      return { order: built.order, attempt: built.attempt ?? 1, claims: proof.claims, filled };
    }
    return { order: built.order, attempt: built.attempt ?? 1, claims: proof.claims };
  }

  return async function create(value, request) {
    if (!isPlainObject(value)) return notAnObject();
    const proposed = await proposal(value, request);
    if ('refusal' in proposed) return proposed.refusal!;
    const claims = proposed.claims;
    let attempt = proposed.attempt;
    const address = context.clientAddressOf(request);
    // The payer's address as the shop's server sees it (the browser's own claim of it is never taken), put in before
    // the order is validated, so that it is validated once.
    const built = proposed.order as Record<string, unknown>;
    if (address && built['payMethod'] !== 'ReferenceCode' && /^[0-9A-Fa-f:.]{2,45}$/.test(address)) built['userClientIP'] = address;
    const checked = validateCreateRequest(proposed.order);
    if (!checked.ok) return invalid(...checked.violations);
    let order = checked.value;
    const kitCallbackUrl = order.callbackUrl;
    const wrongReturn = returnUrlViolation(order, claims?.returnUrl !== undefined);
    if (wrongReturn) return invalid(wrongReturn);

    const notify = order.payMethod === 'ReferenceCode' ? order.notify : undefined;
    const channel = notify?.notifyMethod ?? 'BOTH';
    // Recipients are counted as one however the body spells them (the order's country reads a national number).
    const phone = channel !== 'EMAIL' && notify?.notifyUserMobile ? phoneKeyOf(notify.notifyUserMobile, order.country ?? claims?.country) : undefined;
    const throttled = await throttle(config.stores.throttle, config.limits, [
      ['createsPerClient', context.clientKeyFor(address)],
      ['createsPerCheckout', claims ? `${credentials.merchantId}:${claims.reference}` : undefined],
      ['messagesPerPhone', phone],
      ['messagesPerEmail', channel !== 'SMS' && notify?.notifyUserEmail ? emailKeyOf(notify.notifyUserEmail) : undefined],
    ]);
    if (throttled) {
      logger.warn(`svc-checkout: create refused by the ${throttled.limit} limit (reference ${logValue(order.reference)})`);
      // Not which limit, when the contact came from the seal: a holder who spent a guessed address's limit from other
      // carts would learn from its name whether the shop's address is that one (docs/pay-links.md).
      return tooMany(throttled, undefined, !('filled' in proposed && proposed.filled));
    }

    // One checkout, one payment: the kit makes the checkout's next attempt, once the service says no attempt at this
    // amount is paid or pending (unless the payer left it), and the cart was not paid at another amount.
    if (claims) {
      // Where the kit starts asking: the page's attempt, never past what the token allows (each is a status query).
      const hint = Math.min(attempt, claims.attempts ?? DEFAULT_ATTEMPTS);
      const decided = await nextAttempt(claims, hint, value[LEAVING_FIELD] === true, request.signal, true);
      if ('answer' in decided) return decided.answer;
      attempt = decided.attempt;
      await makeAttempt(order, claims, attempt, kitCallbackUrl);
    }

    // A ticket's order was decided when it was issued (its `authorize` ran then, with the payer's session): used up
    // now, by this create alone, and not authorized again (this request, from the isolated frame, has no session).
    const ticket = 'ticket' in proposed ? proposed.ticket : undefined;
    if (ticket !== undefined && !(await options.tickets.use(ticket))) return refused('used');

    if (config.authorize && ticket === undefined) {
      const authorized = await context.hook(() => config.authorize!(order, webRequestOf(request)));
      if (!authorized.ok) return authorized.response;
      if (authorized.value) order = authorized.value;
      else if (config.orderSource === 'authorize') {
        throw new TypeError('authorize must return the order, with its amount and reference from your records');
      }
    }

    // Checked above; checked again by the client only when the merchant's `authorize` hook answered another order.
    const validated = order === checked.value;
    const send = () =>
      context.callService('create', () =>
        validated ? client.send<CreatePaymentData>('create', order, { signal: request.signal }) : client.createPayment(order, { signal: request.signal }),
      );
    let answer = await send();
    // The attempt exists: another tab or process made it a moment ago, or the kit had no record of the checkout. The
    // kit asks the service where the checkout stands: its order is the answer, or the next attempt is made, once.
    if (claims && isDuplicateReference(answer.code)) {
      const decided = await nextAttempt(claims, attempt + 1, false, request.signal, false);
      // The service could not say where the checkout stands: its own answer, unchanged (the element looks it up).
      if ('answer' in decided) return decided.unknown ? envelope(answer) : decided.answer;
      if (decided.attempt !== attempt) {
        attempt = decided.attempt;
        await makeAttempt(order, claims, attempt, kitCallbackUrl);
        answer = await send();
      }
    }
    return answered(answer, order, claims, attempt);
  };

  /** The service's answer as the element gets it: with the order's token, its time left, and the order kept to reconcile. */
  async function answered(answer: Envelope<CreatePaymentData>, order: CreatePaymentRequest, claims: CheckoutTokenClaims | undefined, attempt: number): Promise<Answer> {
    const data = isSuccess(answer) && isPlainObject(answer.data) ? answer.data : undefined;
    const headers: Record<string, string> = {};
    const country = order.country ?? claims?.country;
    if (data?.status === 'PENDING' && typeof data.orderNo === 'string' && country) {
      options.observeCreated?.({
        orderNo: data.orderNo,
        reference: order.reference,
        country,
        amount: order.amount,
        expireAt: order.expireAt,
        ...(claims ? { checkout: { reference: claims.reference, attempt, amount: claims.amount } } : {}),
      });
    }
    // A reference code's attempt: which payment it is only the service's answer tells (src/core/attempt-note.ts), for
    // another page of the checkout (another tab) to show; a terminal or an account was noted as it was forwarded.
    const note = claims && data?.status === 'PENDING' && order.payMethod === 'ReferenceCode' ? attemptNoteOfOrder(order, data.referenceCode) : undefined;
    if (note) await noteCheckout(() => config.stores.checkouts.noted(claims!.reference, attempt, note));
    if (data?.status === 'PENDING' && typeof order.expireAt === 'number') headers[EXPIRES_IN_HEADER] = String(order.expireAt * 60);
    if (typeof data?.orderNo === 'string' && country) {
      headers[ORDER_TOKEN_HEADER] = await context.orderTokenFor({ orderNo: data.orderNo, reference: order.reference, country }, order.expireAt);
    }
    return envelope(answer, headers);
  }
}
