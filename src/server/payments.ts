/**
 * The element's calls (DESIGN.md §3): create, OTP, PIN, resend and status. Each first proves which order it
 * is about — the checkout token for a create or a query by reference, the order token for an order's own
 * calls — and nothing reaches the service without that proof. What the service receives is built here, from
 * the token's claims and only the payer's fields of the body, with only the fields the service needs.
 */
import {
  attemptOf,
  attemptReference,
  CHECKOUT_TOKEN_HEADER,
  DEFAULT_ATTEMPTS,
  MAX_ATTEMPTS,
  envelopeForViolations,
  errorEnvelope,
  EXPIRES_IN_HEADER,
  isPayMethod,
  isPlainObject,
  isSuccess,
  LEAVING_FIELD,
  LIMITS,
  ORDER_TOKEN_HEADER,
  PAYER_FIELDS,
  SERVICE_OPERATIONS,
  STATUS_REQUEST,
  TOKEN_REFUSALS,
  validate,
  validateCreateRequest,
  isDuplicateReference,
  type Amount,
  type CashierStatusData,
  type CheckoutTokenClaims,
  type CreatePaymentData,
  type CreatePaymentRequest,
  type Envelope,
  type MerchantOperation,
  type OrderTokenClaims,
  type StatusRequest,
  type TokenRefusal,
  type Violation,
} from '../core/index.js';
import { clientKeyOf, rememberedClientAddress } from './client-address.js';
import { envelopeAnswer as envelope, errorMessage, isAbort, logValue, webRequestOf, type Answer, type KitRequest, type Logger } from './http.js';
import { StoreUnavailableError } from './callback-store.js';
import { callbackUrlOf, judge, otherPaidAttempts, progressOf, walkCheckout, type AskStatus, type CheckoutOf, type CheckoutProgress } from './checkouts.js';
import type { CheckoutStore } from './checkout-store.js';
import type { OpenLimitName, ThrottleLimits } from './limits.js';
import { emailKeyOf, phoneKeyOf } from './recipients.js';
import { ServiceError, type ServiceClient } from './service-client.js';
import { requestScopedIo } from './runtime.js';
import { isRefused, SharedStatusQueries, statusQueryKey } from './status-queries.js';
import type { AbortSignalLike } from './transport.js';
import { giveBack, hold, MemoryThrottleStore, throttle, tooMany, type ThrottleStore } from './throttle.js';
import type { StreamProof } from './streams.js';
import { checkCheckoutToken, checkOrderToken, ORDER_TOKEN_GRACE_SECONDS, orderToken, type TokenCredentials } from './tokens.js';

/** Throw this from `authorize` or `authorizeAction` to refuse; the element shows the message (at `field` when given). */
export class OrderRejection extends Error {
  override readonly name = 'OrderRejection';
  readonly field: string;
  constructor(message: string, options: { field?: string } = {}) {
    super(message);
    this.field = options.field ?? 'order';
  }
}

/**
 * Where orders come from. `checkout-token` (the default): the merchant's server issued a checkout token for
 * it. `authorize`: the merchant's `authorize` hook sets every order's amount and reference from its own
 * records, and `authorizeAction` ties status queries to the payer's session. `browser`: the browser's amount
 * and reference are used as sent — for development against the sandbox or a loopback service only.
 */
export type OrderSource = 'checkout-token' | 'authorize' | 'browser';

export type ActionOperation = 'otp' | 'pin' | 'resendOtp' | 'status';

export type AuthorizeHook = (
  order: CreatePaymentRequest,
  request: Request,
) => CreatePaymentRequest | void | Promise<CreatePaymentRequest | void>;

export type AuthorizeActionHook = (operation: ActionOperation, body: Record<string, unknown>, request: Request) => void | Promise<void>;

export interface PaymentRoutesOptions {
  client: ServiceClient;
  credentials: TokenCredentials;
  orderSource: OrderSource;
  /** The kit's own callback URL for an order made through this request, when the token names none. */
  callbackUrlFor: (request: KitRequest) => string | undefined;
  /** The kit's own merchant name, when the token names none. */
  merchantName: string | undefined;
  /** The origins a `returnUrl` the checkout token does not fix may point at: the shop's own, as configured. */
  returnUrlOrigins: readonly string[];
  authorize: AuthorizeHook | undefined;
  authorizeAction: AuthorizeActionHook | undefined;
  clientAddress: ((request: Request) => string | undefined) | undefined;
  /** The leading bits of an IPv6 address the per-client limits count one client by. */
  ipv6ClientPrefix: number;
  /** How long a status answer is shared with the queries of the same order that come after it; `false`: nothing shared. */
  statusSharedMs: number | false;
  throttleStore: ThrottleStore;
  /** What the kit knows of each checkout's attempts without asking the service (checkout-store.ts). */
  checkoutStore: CheckoutStore;
  limits: ThrottleLimits;
  logger: Logger;
  redact: (text: string) => string;
  now: () => number;
  /** Sees the data of every successful status query the status route answers (the status streams learn from it). */
  observeStatus?: ((data: Record<string, unknown>) => void) | undefined;
  /** Sees every order the service created and left pending (reconciliation keeps it until it settles). */
  observeCreated?: ((order: CreatedOrder) => void) | undefined;
}

/** An order the service created and left pending, as the kit sent it. */
export interface CreatedOrder {
  orderNo: string;
  reference: string;
  country: string;
  amount: { total: number; currency: string };
  expireAt: number | undefined;
  /** Its checkout and attempt, when a checkout token decided it. */
  checkout?: CheckoutOf | undefined;
}

/** The proofs a status query or stream may carry, wherever they came from (headers, or a stream's query string). */
export interface StatusProofs {
  orderToken: string | null;
  checkoutToken: string | null;
}

export type ProvenStatusQuery = { ok: true; proof: StreamProof } | { ok: false; response: Answer };

export interface PaymentRoutes {
  routes: Record<Exclude<MerchantOperation, 'callbacks' | 'returnPage' | 'events' | 'health' | 'timings'>, Route>;
  /** The status query a request may make, proved exactly as the status route proves it (for the status stream). */
  proveStatusQuery(value: Record<string, unknown>, request: KitRequest, proofs: StatusProofs): Promise<ProvenStatusQuery>;
  /** One status query, shared with the others for the same order (the status stream's own checks). */
  queryStatus(query: StatusRequest, signal: AbortSignalLike): Promise<Envelope>;
  /** News of an order (a verified callback): status answers of it kept to share are stale. */
  heard(order: { orderNo: string; reference: string }): void;
  /**
   * Whether a proved stream may open: its first status counts as a status query, and it holds a place under the
   * stream limits until `release` (when it closes).
   */
  admitStream(request: KitRequest, proof: StreamProof): Promise<{ ok: true; release(): void } | { ok: false; response: Answer }>;
  /** The token of an order the kit vouches for, as a create or a status query by reference answers it (at once on Node). */
  orderTokenFor(claims: { orderNo: string; reference: string; country: string }, expireAt: number | undefined): string | Promise<string>;
  /**
   * Where a checkout stands for its token's amount (`openCheckout`): its status queries are the status route's, shared
   * with the others of each order and counted against the limits of each order and of the client that asks.
   */
  progress(checkout: ProgressQuery, client: OpenClient): Promise<CheckoutProgress & { startedReference?: string }>;
  /** Another attempt of a checkout the service says is paid too, for a payment of one of them (the callbacks' `alsoPaid`). */
  otherPaid(checkout: CheckoutOf, country: string, paidReference: string): Promise<string[]>;
}

/** What `openCheckout` asks about a checkout. */
export type ProgressQuery = Pick<CheckoutTokenClaims, 'reference' | 'country' | 'amount' | 'attempts'>;

/**
 * Who opens a checkout, for the per-client limit of status queries: the page's request (a Web `Request`, or Node's
 * `IncomingMessage` as Express hands it), or a key of the shop's own (the client's address, a session id).
 */
export interface OpenClient {
  request?: unknown;
  client?: string | undefined;
}

/** A route reads a Web Request or the Node adapter's view of one, and answers without building a Response. */
export type Route = (value: unknown, request: KitRequest) => Promise<Answer>;

/** A refused proof: `02000`, with what was wrong, before anything reaches the service. */
function refused(reason: TokenRefusal | 'order-token'): Answer {
  const message = reason === 'order-token' ? "this call needs the order's token (Svc-Order-Token)" : TOKEN_REFUSALS[reason];
  return envelope(errorEnvelope('02000', { message: `authentication failed: ${message}.`, data: { reason } }));
}

function invalid(...violations: Violation[]): Answer {
  return envelope(envelopeForViolations(violations));
}

/** Whose streams a refused stream was one too many of. */
const STREAMS_OF: Record<OpenLimitName, string> = { streamsPerOrder: 'for this order', streamsPerClient: 'from this client', streams: 'on this server' };

/** An amount as a log line says it: `12500 EGP`. */
const amountText = (amount: Amount | undefined) => (amount ? `${amount.total} ${amount.currency}` : 'an amount not told');

function amountOfData(data: CashierStatusData): Amount | undefined {
  const told = data.amount;
  return told && typeof told.currency === 'string' ? { total: Number(told.total), currency: told.currency } : undefined;
}

const notAnObject = () => invalid({ field: 'body', rule: 'type', message: 'the request body must be a JSON object' });

export function paymentRoutes(options: PaymentRoutesOptions): PaymentRoutes {
  const { client, credentials, logger } = options;

  /** Calls the service; a transport failure becomes the service's own "not available" envelope. */
  async function callService(operation: string, call: () => Promise<Envelope>): Promise<Envelope> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ServiceError) && !isAbort(error)) throw error;
      logger.warn(`svc-checkout: ${operation} failed: ${error instanceof Error ? error.message : 'aborted'}`);
      return errorEnvelope('50003');
    }
  }

  /** Runs a merchant hook; an `OrderRejection` becomes the envelope the element shows at its field. */
  async function hook<T>(run: () => T | Promise<T>): Promise<{ ok: true; value: T } | { ok: false; response: Answer }> {
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      if (!(error instanceof OrderRejection)) throw error;
      return { ok: false, response: invalid({ field: error.field, rule: 'merchant', message: options.redact(error.message) }) };
    }
  }

  /** Seconds the service's clock is ahead of the kit's, from its latest dated answer; undefined before one. */
  const clockOffset = (): number | undefined => {
    const serviceNow = client.serviceNow();
    return serviceNow === undefined ? undefined : Math.round((serviceNow - options.now()) / 1000);
  };

  const orderTokenFor = (claims: { orderNo: string; reference: string; country: string }, expireAt: number | undefined) =>
    orderToken(credentials.privateKey, {
      merchantId: credentials.merchantId,
      ...claims,
      // The order's own life, and a day for a page that comes back to it (3-D Secure, a reload).
      expiresAt: Math.floor(options.now() / 1000) + (expireAt ?? LIMITS.defaultExpireMinutes) * 60 + ORDER_TOKEN_GRACE_SECONDS,
      clockOffset: clockOffset(),
    });

  /**
   * When an order expires, on the kit's clock: its token's expiry less the grace, moved by as much as the
   * service's clock moved against the kit's since the order was made (the service expires it by its own).
   */
  const deadlineOf = (claims: OrderTokenClaims): number => {
    const now = clockOffset();
    const drift = now === undefined || claims.clockOffset === undefined ? 0 : now - claims.clockOffset;
    return (claims.expiresAt - ORDER_TOKEN_GRACE_SECONDS - drift) * 1000;
  };

  /** At once where it can be (a token proved before, or node:crypto at hand): see tokens.ts. */
  const checkoutProof = (token: string | null) => checkCheckoutToken(token, credentials, options.now());

  const clientAddressOf = (request: KitRequest) =>
    (options.clientAddress ? options.clientAddress(webRequestOf(request)) : undefined) ?? rememberedClientAddress(request);
  /** What the per-client limits count this request's client by (an IPv6 address by its prefix). */
  const clientKeyFor = (address: string | undefined) => (address ? clientKeyOf(address, options.ipv6ClientPrefix) : undefined);
  /** Open places counted in this process, for a throttle store that cannot hold them. */
  const openHere = new MemoryThrottleStore();

  // ---------------------------------------------------------------------------------------------------------
  // Create

  /**
   * The order a checkout token decides, with the payer's fields of the body and nothing else of it. The body's
   * reference, when it names one, must be an attempt of the token's checkout: which attempt is made is the kit's to
   * decide (checkouts.ts), and the element's is only where the kit starts asking.
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
    if (method === 'ReferenceCode') order['merchantName'] = claims.merchantName ?? options.merchantName;
    if (claims.returnUrl && method === 'BankAccount') order['returnUrl'] = claims.returnUrl;
    // Its own address, for now: the attempt's, with the checkout and what it was opened for, once the kit chose it.
    order['callbackUrl'] = claims.callbackUrl ?? options.callbackUrlFor(request);
    return { order, attempt };
  }

  /** The browser's order, for the `authorize` and `browser` sources: never its callback URL or merchant name. */
  function orderFromBrowser(body: Record<string, unknown>, request: KitRequest): unknown {
    const { callbackUrl: _callbackUrl, merchantName: _merchantName, userClientIP: _address, [LEAVING_FIELD]: _leaving, ...rest } = body;
    return {
      ...rest,
      callbackUrl: options.callbackUrlFor(request),
      ...(body['payMethod'] === 'ReferenceCode' ? { merchantName: options.merchantName } : {}),
    };
  }

  /**
   * A 3-D Secure return address must be a page of the shop: the token's, or on an origin the shop configured.
   * Never one a request's headers name (`Origin`, `Host`): whoever sends a request by hand writes those.
   */
  const returnOrigins = new Set(options.returnUrlOrigins);
  function returnUrlViolation(order: CreatePaymentRequest, fixedByToken: boolean): Violation | undefined {
    if (order.payMethod !== 'BankAccount' || fixedByToken) return undefined;
    const origin = new URL(order.returnUrl).origin;
    if (returnOrigins.has(origin)) return undefined;
    logger.warn(`svc-checkout: a bank account create was refused: its returnUrl's origin ${logValue(origin)} is not one of returnUrlOrigins`);
    return { field: 'returnUrl', rule: 'origin', message: "returnUrl must be a page of the shop's own origin" };
  }

  const warn = (message: string) => logger.warn(message);

  /** Writes to the checkout store; a store that cannot be reached costs status queries later, never a payment. */
  const noteCheckout = (write: () => void | Promise<void>) =>
    Promise.resolve()
      .then(write)
      .catch((error: unknown) => {
        if (!(error instanceof StoreUnavailableError)) warn(`svc-checkout: the checkout store could not be written: ${errorMessage(error)}`);
      });

  /** A status query by reference for a create, sent at once (never shared: a create judges what the service says now). */
  const askNow =
    (country: string, signal: AbortSignalLike): AskStatus =>
    async (reference) => {
      try {
        return await client.send<CashierStatusData>('status', { country, reference }, { signal, retries: 0 });
      } catch (error) {
        if (error instanceof ServiceError || isAbort(error)) return errorEnvelope('50003') as Envelope<CashierStatusData>;
        throw error;
      }
    };

  /** The answer of a create that makes no order: the checkout's payment, or the order in progress, or a cart that changed. */
  async function existingAnswer(claims: CheckoutTokenClaims, judged: ReturnType<typeof judge>, otherwise?: Envelope): Promise<Answer> {
    const shown = judged.shown;
    if (!shown || (judged.state !== 'paid' && judged.state !== 'pending' && judged.state !== 'changed')) return envelope(otherwise ?? errorEnvelope('50003'));
    if (judged.state === 'changed') {
      logger.warn(`svc-checkout: no payment of checkout ${logValue(claims.reference)} for ${amountText(claims.amount)}: it was paid at ${amountText(amountOfData(shown.data))} (${logValue(shown.reference)})`);
      return envelope({ ...errorEnvelope('CHECKOUT_CHANGED'), data: shown.data });
    }
    logger.warn(`svc-checkout: no new attempt of checkout ${logValue(claims.reference)}: ${logValue(shown.reference)} is ${shown.data.status}`);
    const headers: Record<string, string> = {};
    if (shown.data.orderNo) {
      const token = orderTokenFor({ orderNo: String(shown.data.orderNo), reference: shown.reference, country: claims.country }, claims.expireAt);
      headers[ORDER_TOKEN_HEADER] = token instanceof Promise ? await token : token;
    }
    return envelope({ ...errorEnvelope('ORDER_EXISTS'), data: shown.data }, headers);
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
    await noteCheckout(() => options.checkoutStore.forwarding(claims.reference, attempt, claims.amount));
  }

  /** Which attempt a create of this checkout makes, or what it answers instead. */
  async function nextAttempt(
    claims: CheckoutTokenClaims,
    hint: number,
    leaving: boolean,
    signal: AbortSignalLike,
    guessFirst: boolean,
  ): Promise<{ attempt: number } | { answer: Answer; unknown?: true }> {
    const walk = await walkCheckout(claims.reference, { ask: askNow(claims.country, signal), store: options.checkoutStore, hint, guessFirst, recount: !guessFirst, warn });
    // No answer from the service about an earlier attempt: no order either.
    if (typeof walk === 'string') return { answer: envelope(errorEnvelope('50003')), unknown: true };
    const judged = judge(walk, claims.amount, leaving);
    if (judged.shown) return { answer: await existingAnswer(claims, judged) };
    const allowed = claims.attempts ?? DEFAULT_ATTEMPTS;
    if (judged.next > allowed) {
      logger.warn(`svc-checkout: checkout ${logValue(claims.reference)} has no attempt left (${allowed} ended unpaid)`);
      return { answer: envelope(errorEnvelope('ATTEMPTS_EXHAUSTED')) };
    }
    return { attempt: judged.next };
  }

  async function create(value: unknown, request: KitRequest): Promise<Answer> {
    if (!isPlainObject(value)) return notAnObject();
    let claims: CheckoutTokenClaims | undefined;
    let proposed: unknown;
    let attempt = 1;
    if (options.orderSource === 'checkout-token') {
      let proof = checkoutProof(request.headers.get(CHECKOUT_TOKEN_HEADER));
      if (proof instanceof Promise) proof = await proof;
      if (!proof.ok) return refused(proof.reason);
      claims = proof.claims;
      const built = orderFromToken(claims, value, request);
      if (built.refusal) return built.refusal;
      proposed = built.order;
      attempt = built.attempt ?? 1;
    } else {
      proposed = orderFromBrowser(value, request);
    }
    const address = clientAddressOf(request);
    // The payer's address as the shop's server sees it (the browser's own claim of it is never taken), put in before
    // the order is validated, so that it is validated once.
    const built = proposed as Record<string, unknown>;
    if (address && built['payMethod'] !== 'ReferenceCode' && /^[0-9A-Fa-f:.]{2,45}$/.test(address)) built['userClientIP'] = address;
    const checked = validateCreateRequest(proposed);
    if (!checked.ok) return invalid(...checked.violations);
    let order = checked.value;
    const kitCallbackUrl = order.callbackUrl;
    const wrongReturn = returnUrlViolation(order, claims?.returnUrl !== undefined);
    if (wrongReturn) return invalid(wrongReturn);

    const notify = order.payMethod === 'ReferenceCode' ? order.notify : undefined;
    const channel = notify?.notifyMethod ?? 'BOTH';
    // Recipients are counted as one however the body spells them (the order's country reads a national number).
    const phone = channel !== 'EMAIL' && notify?.notifyUserMobile ? phoneKeyOf(notify.notifyUserMobile, order.country ?? claims?.country) : undefined;
    let throttled = throttle(options.throttleStore, options.limits, [
      ['createsPerClient', clientKeyFor(address)],
      ['createsPerCheckout', claims ? `${credentials.merchantId}:${claims.reference}` : undefined],
      ['messagesPerPhone', phone],
      ['messagesPerEmail', channel !== 'SMS' && notify?.notifyUserEmail ? emailKeyOf(notify.notifyUserEmail) : undefined],
    ]);
    if (throttled instanceof Promise) throttled = await throttled;
    if (throttled) {
      logger.warn(`svc-checkout: create refused by the ${throttled.limit} limit (reference ${logValue(order.reference)})`);
      return tooMany(throttled);
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

    if (options.authorize) {
      const authorized = await hook(() => options.authorize!(order, webRequestOf(request)));
      if (!authorized.ok) return authorized.response;
      if (authorized.value) order = authorized.value;
      else if (options.orderSource === 'authorize') {
        throw new TypeError('authorize must return the order, with its amount and reference from your records');
      }
    }

    // Checked above; checked again by the client only when the merchant's `authorize` hook answered another order.
    const validated = order === checked.value;
    const send = () =>
      callService('create', () =>
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
    const data = isSuccess(answer) && isPlainObject(answer.data) ? answer.data : undefined;
    const headers: Record<string, string> = {};
    const country = order.country ?? claims?.country;
    if (data?.['status'] === 'PENDING' && typeof data['orderNo'] === 'string' && country) {
      options.observeCreated?.({
        orderNo: data['orderNo'],
        reference: order.reference,
        country,
        amount: order.amount,
        expireAt: order.expireAt,
        ...(claims ? { checkout: { reference: claims.reference, attempt, amount: claims.amount } } : {}),
      });
    }
    if (data?.['status'] === 'PENDING' && typeof order.expireAt === 'number') headers[EXPIRES_IN_HEADER] = String(order.expireAt * 60);
    if (typeof data?.['orderNo'] === 'string') {
      if (country) {
        const token = orderTokenFor({ orderNo: data['orderNo'], reference: order.reference, country }, order.expireAt);
        headers[ORDER_TOKEN_HEADER] = token instanceof Promise ? await token : token;
      }
    }
    return envelope(answer, headers);
  }

  // ---------------------------------------------------------------------------------------------------------
  // An order's own calls

  async function orderProof(token: string | null): Promise<{ ok: true; claims: OrderTokenClaims } | { ok: false; response: Answer }> {
    if (!token) return { ok: false, response: refused('order-token') };
    const checked = checkOrderToken(token, credentials, options.now());
    // Most often known at once: the element polls with the same token.
    const proof = checked instanceof Promise ? await checked : checked;
    if (!proof.ok) {
      logger.warn(`svc-checkout: an order call was refused: its ${ORDER_TOKEN_HEADER} is ${proof.reason}`);
      return { ok: false, response: refused(proof.reason) };
    }
    return { ok: true, claims: proof.claims };
  }

  /** OTP, PIN and resend: the order and its country from the order token; from the body only the code. */
  function codeRoute(operation: 'otp' | 'pin' | 'resendOtp', field?: 'otp' | 'pin'): Route {
    return async (value, request) => {
      if (!isPlainObject(value)) return notAnObject();
      const proof = await orderProof(request.headers.get(ORDER_TOKEN_HEADER));
      if (!proof.ok) return proof.response;
      const { orderNo, country } = proof.claims;
      const body: Record<string, unknown> = { country, orderNo, ...(field ? { [field]: value[field] } : {}) };
      const orderKey = `${credentials.merchantId}:${orderNo}`;
      if (field) {
        // A code that is not one (letters, too short) is the payer's typo, told at once: it spends no attempt.
        const checked = SERVICE_OPERATIONS[field === 'otp' ? 'inputOtp' : 'inputPin'].check(body);
        if (!checked.ok) return invalid(...checked.violations);
      }
      // A code is counted before it is sent, so that codes sent all at once are counted too, and given back when the
      // service took it or never judged it.
      const throttled = await throttle(options.throttleStore, options.limits, [[field ? 'wrongCodesPerOrder' : 'resendOtp', orderKey]]);
      if (throttled) {
        if (field) logger.warn(`svc-checkout: a code for order ${logValue(orderNo)} was refused by the wrongCodesPerOrder limit`);
        return tooMany(throttled);
      }
      if (options.authorizeAction) {
        const allowed = await hook(() => options.authorizeAction!(operation, body, webRequestOf(request)));
        if (!allowed.ok) {
          if (field) await giveBack(options.throttleStore, options.limits, 'wrongCodesPerOrder', orderKey);
          return allowed.response;
        }
      }
      const call = {
        otp: () => client.submitOtp(body as never, { signal: request.signal }),
        pin: () => client.submitPin(body as never, { signal: request.signal }),
        resendOtp: () => client.resendOtp(body as never, { signal: request.signal }),
      }[operation];
      const answer = await callService(operation, call);
      // Wrong is what the service answered other than a success; `50003` is a service that judged nothing.
      const wrong = !isSuccess(answer) && answer.code !== '50003';
      if (field && !wrong) await giveBack(options.throttleStore, options.limits, 'wrongCodesPerOrder', orderKey);
      return envelope(answer);
    };
  }

  /**
   * Which order a status query (or stream) may read: by its order number with its order token, or by a
   * reference the checkout token covers (a lost create's answer, a page that did not create the order) — or,
   * with orders from `authorize` or the browser, as the body names it. `authorizeAction` sees it last.
   */
  async function proveStatusQuery(value: Record<string, unknown>, request: KitRequest, proofs: StatusProofs): Promise<ProvenStatusQuery> {
    let proof: StreamProof;
    if (proofs.orderToken) {
      const checked = await orderProof(proofs.orderToken);
      if (!checked.ok) return checked;
      const { claims } = checked;
      proof = { query: { country: claims.country, orderNo: claims.orderNo }, expiresAt: deadlineOf(claims), deadline: () => deadlineOf(claims) };
    } else if (options.orderSource === 'checkout-token') {
      const checked = await checkoutProof(proofs.checkoutToken);
      if (!checked.ok) return { ok: false, response: refused(checked.reason) };
      const claims = checked.claims;
      const reference = value['reference'] === undefined ? claims.reference : value['reference'];
      // The checkout's own attempts, and the order of the earlier scheme the kit named in it: never another reference.
      const covered =
        typeof reference === 'string' && (attemptOf(claims.reference, reference, claims.attempts ?? DEFAULT_ATTEMPTS) !== undefined || reference === claims.started);
      if (!covered) return { ok: false, response: refused('reference') };
      proof = {
        query: { country: claims.country, reference: reference as string },
        // The order was made before now: it expires within its expireAt from now at the latest.
        expiresAt: options.now() + (claims.expireAt ?? LIMITS.defaultExpireMinutes) * 60_000,
        vouchFor: { reference: reference as string, country: claims.country, expireAt: claims.expireAt, amount: claims.amount },
      };
    } else {
      const checked = validate<StatusRequest>(STATUS_REQUEST, value);
      if (!checked.ok) return { ok: false, response: invalid(...checked.violations) };
      const { country, orderNo, reference } = checked.value;
      // With orders from `authorize`, an order number is proved by its order token; a reference goes to
      // `authorizeAction`, which ties it to the payer's session.
      if (orderNo !== undefined && options.orderSource === 'authorize') return { ok: false, response: refused('order-token') };
      // One way to name the order, never both.
      proof = { query: orderNo !== undefined ? { country, orderNo } : { country, reference: reference as string }, expiresAt: undefined };
    }
    if (options.authorizeAction) {
      const allowed = await hook(() => options.authorizeAction!('status', { ...proof.query }, webRequestOf(request)));
      if (!allowed.ok) return allowed;
    }
    return { ok: true, proof };
  }

  /**
   * Status queries go to the service once per order within a moment, however many ask (status-queries.ts). Tried
   * once: the element polls again anyway, and must hear within its own timeout. A query comes from a proof (a
   * token's checked claims, or the status rules), so it is sent as it is.
   */
  const statusQueries = new SharedStatusQueries({
    send: (query, signal) => callService('status', () => client.send<CashierStatusData>('status', query, { signal, retries: 0 })),
    now: options.now,
    sharedMs: options.statusSharedMs === false ? 0 : options.statusSharedMs,
    share: options.statusSharedMs !== false && !requestScopedIo,
  });

  /** Counts one status query against the limits of its order and of the client that asks. */
  const statusLimits = (request: KitRequest, query: StatusRequest) =>
    throttle(options.throttleStore, options.limits, [
      ['statusPerClient', clientKeyFor(clientAddressOf(request))],
      ['statusPerOrder', `${credentials.merchantId}:${statusQueryKey(query)}`],
    ]);

  /** A stream's first status is a status query; the stream then holds its places until it closes. */
  async function admitStream(request: KitRequest, proof: StreamProof): Promise<{ ok: true; release(): void } | { ok: false; response: Answer }> {
    const throttled = await statusLimits(request, proof.query);
    if (throttled) return { ok: false, response: tooMany(throttled) };
    const places = await hold(options.throttleStore, openHere, options.limits, [
      ['streamsPerOrder', `${credentials.merchantId}:${statusQueryKey(proof.query)}`],
      ['streamsPerClient', clientKeyFor(clientAddressOf(request))],
      ['streams', credentials.merchantId],
    ]);
    if (places.held) return { ok: true, release: places.release };
    const { refused, limit } = places;
    const message = `too many status streams ${STREAMS_OF[refused.limit]} (${limit}); poll /payments/status instead.`;
    return { ok: false, response: tooMany(refused, message) };
  }

  /** The status of an order; a query by reference answers with the order's token, so that the page can go on with it. */
  async function status(value: unknown, request: KitRequest): Promise<Answer> {
    if (!isPlainObject(value)) return notAnObject();
    const proven = await proveStatusQuery(value, request, {
      orderToken: request.headers.get(ORDER_TOKEN_HEADER),
      checkoutToken: request.headers.get(CHECKOUT_TOKEN_HEADER),
    });
    if (!proven.ok) return proven.response;
    const { query, vouchFor, deadline } = proven.proof;
    // Shared with the other queries of this order just now; otherwise counted against the limits of this order and
    // this client, and sent.
    const shared = await statusQueries.ask(query, request.signal, () => statusLimits(request, query));
    if (isRefused(shared)) return tooMany(shared.refused);
    const answer = shared;
    const data = isSuccess(answer) && isPlainObject(answer.data) ? answer.data : undefined;
    if (data) options.observeStatus?.(data);
    const headers: Record<string, string> = {};
    // An order of the checkout made for another amount (the cart changed) is not this checkout's: the page may read its
    // status, never act on it.
    const madeFor = data ? amountOfData(data as unknown as CashierStatusData) : undefined;
    const sameCart = !vouchFor?.amount || !madeFor || (madeFor.total === vouchFor.amount.total && madeFor.currency === vouchFor.amount.currency);
    if (vouchFor && sameCart && typeof data?.['orderNo'] === 'string' && data['reference'] === vouchFor.reference) {
      headers[ORDER_TOKEN_HEADER] = await orderTokenFor({ orderNo: data['orderNo'], reference: vouchFor.reference, country: vouchFor.country }, vouchFor.expireAt);
    }
    // The order's own token knows its expiry: each answer of a pending order says how long it has left, in the
    // service's time as this very answer dated it, so that a page's deadline and countdown follow the service's
    // clock rather than the device's.
    if (deadline && data?.['status'] === 'PENDING') {
      headers[EXPIRES_IN_HEADER] = String(Math.max(0, Math.round((deadline() - options.now()) / 1000)));
    }
    return envelope(answer, headers);
  }

  /** The client key of a page that opens a checkout: the shop's own, else its request's address. */
  function openerKey(opener: OpenClient): string | undefined {
    if (typeof opener.client === 'string' && opener.client !== '') return clientKeyFor(opener.client);
    const request = opener.request;
    if (typeof Request !== 'undefined' && request instanceof Request) return clientKeyFor(clientAddressOf(request));
    const node = request as { socket?: { remoteAddress?: string }; headers?: Record<string, string | string[] | undefined> } | undefined;
    if (!node || typeof node !== 'object') return undefined;
    if (options.clientAddress && node.headers) {
      const headers = new Headers();
      for (const [name, given] of Object.entries(node.headers)) if (given !== undefined) headers.set(name, Array.isArray(given) ? given.join(', ') : given);
      return clientKeyFor(options.clientAddress(new Request('http://localhost/', { headers })) ?? node.socket?.remoteAddress?.replace(/^::ffff:/, ''));
    }
    return clientKeyFor(node.socket?.remoteAddress?.replace(/^::ffff:/, ''));
  }

  async function progress(checkout: ProgressQuery, opener: OpenClient): Promise<CheckoutProgress & { startedReference?: string }> {
    const client = openerKey(opener);
    const ask: AskStatus = async (reference) => {
      const query = { country: checkout.country, reference };
      const answer = await statusQueries.ask(query, undefined, () =>
        throttle(options.throttleStore, options.limits, [
          ['statusPerClient', client],
          ['statusPerOrder', `${credentials.merchantId}:${statusQueryKey(query)}`],
        ]),
      );
      if (isRefused(answer)) return 'throttled';
      if (isSuccess(answer) && isPlainObject(answer.data)) options.observeStatus?.(answer.data);
      return answer as Envelope<CashierStatusData>;
    };
    const walk = await walkCheckout(checkout.reference, { ask, store: options.checkoutStore, warn });
    if (typeof walk === 'string') {
      if (walk === 'throttled') logger.warn(`svc-checkout: checkout ${logValue(checkout.reference)} was opened without asking the service: a status limit refused it`);
      return { state: 'unknown', attempt: 1, started: false };
    }
    return progressOf(judge(walk, checkout.amount, false), checkout.attempts ?? DEFAULT_ATTEMPTS, walk.record);
  }

  return {
    progress,
    otherPaid: (checkout, country, paidReference) =>
      otherPaidAttempts(
        (reference) => statusQueries.ask({ country, reference }, undefined, () => undefined, true).then((answer) => (isRefused(answer) ? 'throttled' : (answer as Envelope<CashierStatusData>))),
        options.checkoutStore,
        checkout,
        paidReference,
        warn,
      ),
    routes: {
      create,
      otp: codeRoute('otp', 'otp'),
      pin: codeRoute('pin', 'pin'),
      resendOtp: codeRoute('resendOtp'),
      status,
    },
    proveStatusQuery,
    queryStatus: async (query, signal) => {
      const answer = await statusQueries.ask(query, signal, () => undefined, true);
      return isRefused(answer) ? errorEnvelope('50003') : answer;
    },
    admitStream,
    heard: (order) => statusQueries.forget(order),
    orderTokenFor,
  };
}
