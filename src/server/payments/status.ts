/**
 * An order's status, as a page reads it (`/payments/status`), as a status stream is admitted (`/payments/events`) and
 * as `openCheckout` asks where a cart stands: each a status query proved the same way, shared with the others of the
 * same order within a moment (status-queries.ts), and counted against the limits of the order and of the client.
 */
import {
  ATTEMPT_NOTE_FIELD,
  attemptOf,
  CHECKOUT_TOKEN_HEADER,
  DEFAULT_ATTEMPTS,
  errorEnvelope,
  EXPIRES_IN_HEADER,
  isPlainObject,
  isSuccess,
  LIMITS,
  ORDER_TOKEN_HEADER,
  STATUS_REQUEST,
  validate,
  type AttemptNote,
  type CashierStatusData,
  type CheckoutTokenClaims,
  type Envelope,
  type StatusRequest,
} from '../../core/index.js';
import { judge, otherPaidAttempts, progressOf, walkCheckout, type AskStatus, type CheckoutOf, type CheckoutProgress } from '../checkouts/walk.js';
import { envelopeAnswer as envelope, errorMessage, logValue, webRequestOf, type Answer, type KitRequest } from '../http/http.js';
import type { OpenLimitName } from '../limits/table.js';
import { hold, throttle, tooMany } from '../limits/throttle.js';
import { requestScopedIo } from '../runtime/modules.js';
import type { AbortSignalLike } from '../service/transport.js';
import { StoreUnavailableError } from '../stores/shared.js';
import { MemoryThrottleStore } from '../stores/throttle/memory.js';
import type { StreamProof } from '../streams/hub.js';
import { invalid, notAnObject, refused, type PaymentContext, type Route } from './context.js';
import { amountOfData, orderLearnt, type CreatedOrder, type Vouched } from './learn.js';
import { isRefused, SharedStatusQueries, statusQueryKey } from './status-queries.js';

/** The proofs a status query or stream may carry, wherever they came from (headers, or a stream's query string). */
export interface StatusProofs {
  orderToken: string | null;
  checkoutToken: string | null;
}

export type ProvenStatusQuery = { ok: true; proof: StreamProof } | { ok: false; response: Answer };

/** What `openCheckout` asks about a checkout. */
export type ProgressQuery = Pick<CheckoutTokenClaims, 'reference' | 'country' | 'amount' | 'attempts' | 'expireAt'>;

/**
 * Who opens a checkout, for the per-client limit of status queries: the page's request (a Web `Request`, or Node's
 * `IncomingMessage` as Express hands it), or a key of the shop's own (the client's address, a session id).
 */
export interface OpenClient {
  request?: unknown;
  client?: string | undefined;
}

/** Whose streams a refused stream was one too many of. */
const STREAMS_OF: Record<OpenLimitName, string> = { streamsPerOrder: 'for this order', streamsPerClient: 'from this client', streams: 'on this server' };

export interface StatusRoutes {
  status: Route;
  /** The status query a request may make, proved exactly as the status route proves it (for the status stream). */
  proveStatusQuery(value: Record<string, unknown>, request: KitRequest, proofs: StatusProofs): Promise<ProvenStatusQuery>;
  /**
   * Whether a proved stream may open: its first status counts as a status query, and it holds a place under the
   * stream limits until `release` (when it closes).
   */
  admitStream(request: KitRequest, proof: StreamProof): Promise<{ ok: true; release(): void } | { ok: false; response: Answer }>;
  /**
   * A status stream's own check: one status query, shared with the others for the same order, counted against the
   * order's `statusPerOrder` limit (a refusal answers `TOO_MANY_REQUESTS`, and nothing is sent); the order it tells of
   * is kept for reconciliation with the checkout `vouchFor` names (the stream's proof).
   */
  queryStatus(query: StatusRequest, signal: AbortSignalLike, vouchFor?: StreamProof['vouchFor']): Promise<Envelope>;
  /** News of an order (a verified callback): status answers of it kept to share are stale. */
  heard(order: { orderNo: string; reference: string }): void;
  /** Where a checkout stands for its token's amount (`openCheckout`), its queries counted for the client that opens it. */
  progress(checkout: ProgressQuery, client: OpenClient): Promise<CheckoutProgress & { startedReference?: string }>;
  /** Other attempts of a checkout the service says are paid too, for a payment of one of them (the callbacks' `alsoPaid`). */
  otherPaid(checkout: CheckoutOf, country: string, paidReference: string): Promise<string[]>;
}

export function statusRoutes(
  context: PaymentContext,
  observeStatus: ((data: Record<string, unknown>) => void) | undefined,
  observeOrder: ((order: CreatedOrder) => void) | undefined,
): StatusRoutes {
  const { config, client } = context;

  /**
   * A status answer tells of an order: kept for reconciliation, whether the kit made it here or not (its create answer
   * lost, made by another process, followed by a stream), so that its outcome reaches the shop if its callback is lost.
   */
  const learn = (query: StatusRequest, answer: Envelope, vouchFor?: Vouched) => {
    const order = observeOrder ? orderLearnt(query.country, answer, vouchFor) : undefined;
    if (order) observeOrder!(order);
  };
  const { credentials, logger } = config;
  const warn = (message: string) => logger.warn(message);
  /** Open places counted in this process, for a throttle store that cannot hold them. */
  const openHere = new MemoryThrottleStore();

  /**
   * Status queries go to the service once per order within a moment, however many ask. Tried once: the element polls
   * again anyway, and must hear within its own timeout. A query comes from a proof (a token's checked claims, or the
   * status rules), so it is sent as it is.
   */
  const statusQueries = new SharedStatusQueries({
    send: (query, signal) => context.callService('status', () => client.send<CashierStatusData>('status', query, { signal, retries: 0 })),
    now: config.now,
    sharedMs: config.statusSharedMs === false ? 0 : config.statusSharedMs,
    share: config.statusSharedMs !== false && !requestScopedIo,
  });

  /** Counts one status query against the limits of its order and of the client that asks. */
  const statusLimits = (clientKey: string | undefined, query: StatusRequest) =>
    throttle(config.stores.throttle, config.limits, [
      ['statusPerClient', clientKey],
      ['statusPerOrder', `${credentials.merchantId}:${statusQueryKey(query)}`],
    ]);
  const clientOf = (request: KitRequest) => context.clientKeyFor(context.clientAddressOf(request));

  /**
   * Which order a status query (or stream) may read: by its order number with its order token, or by a reference the
   * checkout token covers (a lost create's answer, a page that did not create the order) — or, with orders from
   * `authorize` or the browser, as the body names it. `authorizeAction` sees it last.
   */
  async function proveStatusQuery(value: Record<string, unknown>, request: KitRequest, proofs: StatusProofs): Promise<ProvenStatusQuery> {
    let proof: StreamProof;
    if (proofs.orderToken) {
      const checked = await context.orderProof(proofs.orderToken);
      if (!checked.ok) return checked;
      const { claims } = checked;
      proof = { query: { country: claims.country, orderNo: claims.orderNo }, expiresAt: context.deadlineOf(claims), deadline: () => context.deadlineOf(claims) };
    } else if (config.orderSource === 'checkout-token') {
      const checked = await context.checkoutProof(proofs.checkoutToken);
      if (!checked.ok) return checked;
      const claims = checked.claims;
      const reference = value['reference'] === undefined ? claims.reference : value['reference'];
      // The checkout's own attempts, and the order of the earlier scheme the kit named in it: never another reference.
      const covered =
        typeof reference === 'string' && (attemptOf(claims.reference, reference, claims.attempts ?? DEFAULT_ATTEMPTS) !== undefined || reference === claims.started);
      if (!covered) return { ok: false, response: refused('reference') };
      proof = {
        query: { country: claims.country, reference: reference as string },
        // The order was made before now: it expires within its expireAt from now at the latest.
        expiresAt: config.now() + (claims.expireAt ?? LIMITS.defaultExpireMinutes) * 60_000,
        vouchFor: {
          reference: reference as string,
          country: claims.country,
          expireAt: claims.expireAt,
          amount: claims.amount,
          checkout: checkoutOf(claims.reference, reference as string, claims.attempts),
        },
      };
    } else {
      const checked = validate<StatusRequest>(STATUS_REQUEST, value);
      if (!checked.ok) return { ok: false, response: invalid(...checked.violations) };
      const { country, orderNo, reference } = checked.value;
      // With orders from `authorize`, an order number is proved by its order token; a reference goes to
      // `authorizeAction`, which ties it to the payer's session.
      if (orderNo !== undefined && config.orderSource === 'authorize') return { ok: false, response: refused('order-token') };
      // One way to name the order, never both.
      proof = { query: orderNo !== undefined ? { country, orderNo } : { country, reference: reference as string }, expiresAt: undefined };
    }
    if (config.authorizeAction) {
      const allowed = await context.hook(() => config.authorizeAction!('status', { ...proof.query }, webRequestOf(request)));
      if (!allowed.ok) return allowed;
    }
    return { ok: true, proof };
  }

  /** A stream's first status is a status query; the stream then holds its places until it closes. */
  async function admitStream(request: KitRequest, proof: StreamProof): Promise<{ ok: true; release(): void } | { ok: false; response: Answer }> {
    const throttled = await statusLimits(clientOf(request), proof.query);
    if (throttled) return { ok: false, response: tooMany(throttled) };
    const places = await hold(config.stores.throttle, openHere, config.limits, [
      ['streamsPerOrder', `${credentials.merchantId}:${statusQueryKey(proof.query)}`],
      ['streamsPerClient', clientOf(request)],
      ['streams', credentials.merchantId],
    ]);
    if (places.held) return { ok: true, release: places.release };
    const message = `too many status streams ${STREAMS_OF[places.refused.limit]} (${places.limit}); poll /payments/status instead.`;
    return { ok: false, response: tooMany(places.refused, message) };
  }

  /** The status of an order; a query by reference answers with the order's token, so that the page can go on with it. */
  const status: Route = async (value, request) => {
    if (!isPlainObject(value)) return notAnObject();
    const proven = await proveStatusQuery(value, request, {
      orderToken: request.headers.get(ORDER_TOKEN_HEADER),
      checkoutToken: request.headers.get(CHECKOUT_TOKEN_HEADER),
    });
    if (!proven.ok) return proven.response;
    const { query, vouchFor, deadline } = proven.proof;
    // Shared with the other queries of this order just now; otherwise counted against the limits of this order and
    // this client, and sent.
    const answer = await statusQueries.ask(query, request.signal, () => statusLimits(clientOf(request), query));
    if (isRefused(answer)) return tooMany(answer.refused);
    learn(query, answer, vouchFor);
    const data = isSuccess(answer) && isPlainObject(answer.data) ? answer.data : undefined;
    if (data) observeStatus?.(data);
    const headers: Record<string, string> = {};
    // An order of the checkout made for another amount (the cart changed) is not this checkout's: the page may read its
    // status, never act on it.
    const madeFor = data ? amountOfData(data as unknown as CashierStatusData) : undefined;
    const sameCart = !vouchFor?.amount || !madeFor || (madeFor.total === vouchFor.amount.total && madeFor.currency === vouchFor.amount.currency);
    if (vouchFor && sameCart && typeof data?.['orderNo'] === 'string' && data['reference'] === vouchFor.reference) {
      headers[ORDER_TOKEN_HEADER] = await context.orderTokenFor({ orderNo: data['orderNo'], reference: vouchFor.reference, country: vouchFor.country }, vouchFor.expireAt);
    }
    // The order's own token knows its expiry: each answer of a pending order says how long it has left, in the
    // service's time as this very answer dated it, so that a page's deadline and countdown follow the service's
    // clock rather than the device's.
    if (deadline && data?.['status'] === 'PENDING') {
      headers[EXPIRES_IN_HEADER] = String(Math.max(0, Math.round((deadline() - config.now()) / 1000)));
    }
    // A pending attempt of this token's own checkout: which payment it is, as the kit noted it (another tab says it).
    const attempt = vouchFor?.checkout;
    if (attempt && sameCart && data?.['status'] === 'PENDING' && data['reference'] === vouchFor.reference) {
      const note = await noteOf(attempt.reference, attempt.attempt);
      // The shared answer is never written to: another page's copy of it is its own.
      if (note) return envelope({ ...answer, data: { ...data, [ATTEMPT_NOTE_FIELD]: note } }, headers);
    }
    return envelope(answer, headers);
  };

  /** The note of a checkout's attempt (src/core/attempt-note.ts), or none when the store has none or cannot say. */
  async function noteOf(checkout: string, attempt: number): Promise<AttemptNote | undefined> {
    try {
      return (await config.stores.checkouts.read(checkout))?.notes?.[attempt];
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) warn(`svc-checkout: the checkout store could not be read: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** The client key of a page that opens a checkout: the shop's own, else its request's address. */
  function openerKey(opener: OpenClient): string | undefined {
    if (typeof opener.client === 'string' && opener.client !== '') return context.clientKeyFor(opener.client);
    const request = opener.request;
    if (typeof Request !== 'undefined' && request instanceof Request) return clientOf(request);
    const node = request as { socket?: { remoteAddress?: string }; headers?: Record<string, string | string[] | undefined> } | undefined;
    if (!node || typeof node !== 'object') return undefined;
    const socketAddress = node.socket?.remoteAddress?.replace(/^::ffff:/, '');
    if (config.clientAddress && node.headers) {
      const headers = new Headers();
      for (const [name, given] of Object.entries(node.headers)) if (given !== undefined) headers.set(name, Array.isArray(given) ? given.join(', ') : given);
      return context.clientKeyFor(config.clientAddress(new Request('http://localhost/', { headers })) ?? socketAddress);
    }
    return context.clientKeyFor(socketAddress);
  }

  async function progress(checkout: ProgressQuery, opener: OpenClient): Promise<CheckoutProgress & { startedReference?: string }> {
    const clientKey = openerKey(opener);
    const ask: AskStatus = async (reference) => {
      const query = { country: checkout.country, reference };
      const answer = await statusQueries.ask(query, undefined, () => statusLimits(clientKey, query));
      if (isRefused(answer)) return 'throttled';
      // An attempt of the checkout the service knows: kept for reconciliation with its checkout, as a create's is.
      learn(query, answer, { reference, expireAt: checkout.expireAt, amount: checkout.amount, checkout: checkoutOf(checkout.reference, reference, checkout.attempts) });
      if (isSuccess(answer) && isPlainObject(answer.data)) observeStatus?.(answer.data);
      return answer as Envelope<CashierStatusData>;
    };
    const walk = await walkCheckout(checkout.reference, { ask, store: config.stores.checkouts, warn });
    if (typeof walk === 'string') {
      if (walk === 'throttled') warn(`svc-checkout: checkout ${logValue(checkout.reference)} was opened without asking the service: a status limit refused it`);
      return { state: 'unknown', attempt: 1, started: false };
    }
    return progressOf(judge(walk, checkout.amount, false), checkout.attempts ?? DEFAULT_ATTEMPTS, walk.record);
  }

  /**
   * A status query of the kit's own (a stream's check, a payment's other attempts): shared in flight; a stream's checks
   * count against the order's limit (`counted`), so that its pace never asks more than the limit allows.
   */
  const ownQuery = async (query: StatusRequest, signal: AbortSignalLike | undefined, vouchFor?: Vouched, counted = false): Promise<Envelope> => {
    const answer = await statusQueries.ask(query, signal, () => (counted ? statusLimits(undefined, query) : undefined), true);
    if (isRefused(answer)) return errorEnvelope('TOO_MANY_REQUESTS', { data: { limit: answer.refused.limit, retryAfterSeconds: answer.refused.retryAfterSeconds } });
    learn(query, answer, vouchFor);
    return answer;
  };

  return {
    status,
    proveStatusQuery,
    admitStream,
    queryStatus: (query, signal, vouchFor) => ownQuery(query, signal, vouchFor, true),
    heard: (order) => statusQueries.forget(order),
    progress,
    otherPaid: (checkout, country, paidReference) =>
      otherPaidAttempts((reference) => ownQuery({ country, reference }, undefined) as Promise<Envelope<CashierStatusData>>, config.stores.checkouts, checkout, paidReference, warn),
  };
}

/** The checkout a reference is an attempt of; none for the order of an earlier scheme the token names (`started`). */
function checkoutOf(base: string, reference: string, attempts: number | undefined): { reference: string; attempt: number } | undefined {
  const attempt = attemptOf(base, reference, attempts ?? DEFAULT_ATTEMPTS);
  return attempt === undefined ? undefined : { reference: base, attempt };
}
