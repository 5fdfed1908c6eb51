/**
 * The merchant endpoint the element talks to (DESIGN.md §3), as a Web-standard `(Request) => Promise<Response>`
 * so that it runs on Node (through `toNodeListener`), serverless and edge runtimes alike. This file routes and
 * checks the options; the element's calls are in payments.ts, the service's callbacks in callbacks.ts.
 *
 * Every business outcome is HTTP 200 with the service's envelope, unchanged when it came from the service.
 * Non-200 answers are for transport problems only: 404, 405, 413, 415, and on the callback route 401/400 (refused),
 * 500 (`onCallback` failed) and 503 (the same callback is being handled): the service sends those again.
 */
import { CHECKOUT_TOKEN_HEADER, isHttpUrl, isPayMethod, isPlainObject, isTerminalStatus, LIMITS, MERCHANT_PATHS, ORDER_TOKEN_HEADER, STREAM_QUERY, TOKEN_KINDS, type MerchantOperation } from '../core/index.js';
import type { CheckoutProgress } from './checkouts.js';
import { MemoryCheckoutStore, type CheckoutStore } from './checkout-store.js';
import { isLiveAddressAllowed, isLoopbackHost, isLoopbackUrl } from '../core/addresses.js';
import { MemoryCallbackStore, type CallbackStore } from './callback-store.js';
import { callbackReceiver, handOver, type CallbackEvent } from './callbacks.js';
import { rememberedLocalOrigin } from './client-address.js';
import { ElementFiles, type ElementScript } from './element/element-files.js';
import { listened, requestChannel, traceRequest, traceStreamRequest, type RequestTrace } from './diagnostics.js';
import { healthAnswer } from './health.js';
import { framePreflight, frameReadable, withFrameCallHeaders } from './element/frame-calls.js';
import {
  errorMessage,
  logValue,
  JSON_TYPE,
  NODE_FAST_PATH,
  problem,
  problemAnswer,
  readBody,
  redacting,
  redactor,
  toResponse,
  withJson,
  type Answer,
  type KitRequest,
  type Logger,
  type NodeFastPath,
} from './http.js';
import { paymentRoutes, type AuthorizeActionHook, type AuthorizeHook, type OrderSource, type Route } from './payments.js';
import {
  MemoryReconciliationStore,
  Reconciler,
  resolveReconcileOptions,
  type ReconcileOptions,
  type ReconciliationStore,
  type SweepReport,
} from './reconciliation.js';
import { returnPage } from './element/return-page.js';
import { requestScopedIo } from './runtime.js';
import { issueCheckoutToken, type CheckoutOrder, type IssueCheckoutTokenOptions } from './tokens.js';
import { count, ServiceClient, ServiceConfigError, type ServiceClientOptions } from './service-client.js';
import { MemoryStatusBus, type StatusBus, type StatusUpdate } from './status-bus.js';
import { resolveStreamOptions, StatusHub, systemTimers, type StreamOptions, type Timers } from './streams.js';
import { DEFAULT_IPV6_CLIENT_PREFIX } from './client-address.js';
import { checkMovedStreamOptions, resolveLimits, type ThrottleLimits } from './limits.js';
import { STATUS_SHARED_MS } from './status-queries.js';
import { MemoryThrottleStore, type ThrottleStore } from './throttle.js';
import { receiveTimings } from './timings.js';

export { OrderRejection } from './payments.js';
export type { ActionOperation, AuthorizeActionHook, AuthorizeHook, OrderSource, OpenClient } from './payments.js';
export type { CallbackEvent } from './callbacks.js';
export type { ElementScript, ElementTagOptions } from './element/element-files.js';

export interface MerchantHandlerOptions extends ServiceClientOptions {
  /** A path prefix the handler is mounted under (e.g. `/checkout`); requests outside it get 404. */
  basePath?: string;
  /**
   * Where orders come from. Default `checkout-token`: every create carries a token your server issued with
   * `issueCheckoutToken`. See `OrderSource` for `authorize` and the development-only `browser`.
   */
  orders?: OrderSource;
  /**
   * The public address of this handler's `/callbacks` route, for orders whose token names none. `https:` unless
   * loopback. Without it, against a service on this machine (the sandbox), the kit's own loopback address: the
   * address and port the element's request reached this server at, when those are loopback. `false`: none ever, the
   * service calls the webhook configured for the merchant.
   */
  callbackUrl?: string | false;
  /** The name the service shows the payer (reference code messages), for orders whose token names none. */
  merchantName?: string;
  /** Sees every order, validated, before it is signed: return it (changed or not), or throw `OrderRejection`. */
  authorize?: AuthorizeHook;
  /** Sees every OTP, PIN, resend and status call, as it will be forwarded; throw `OrderRejection` to refuse it. */
  authorizeAction?: AuthorizeActionHook;
  /**
   * Each payment's outcome, once: from the service's verified callback, or from the kit's own status query when
   * the callback is late or lost (`event.source`; docs/reliability.md).
   */
  onCallback?: (event: CallbackEvent) => void | Promise<void>;
  callbackStore?: CallbackStore;
  /**
   * Asks the service about the orders the kit created and has not seen settled (with `onCallback` only);
   * `false` turns it off. See `ReconcileOptions` and docs/reliability.md.
   */
  reconcile?: ReconcileOptions | false;
  /** Where those orders are kept; memory by default, a shared store (`svc-checkout/server/redis`) across processes. */
  reconciliationStore?: ReconciliationStore;
  /** Counts for `limits`; memory by default, a shared store when the kit runs in several processes. */
  throttleStore?: ThrottleStore;
  /**
   * What the kit knows of each checkout's attempts without asking the service (docs/one-payment.md); memory by
   * default, a shared store (`svc-checkout/server/redis`) across processes.
   */
  checkoutStore?: CheckoutStore;
  /** The kit's limits (docs/limits.md): each `{ limit, windowSeconds }`, `{ limit }` for open streams, or `false` for off. */
  limits?: Partial<ThrottleLimits>;
  /**
   * How long a status answer of an order is shared with the queries of the same order that come after it (a query
   * in flight is shared too). Default 1 000 ms; 0 for none after it came; `false` to share nothing, not even a query
   * in flight (each request asks for itself, as in workerd).
   */
  statusSharedMs?: number | false;
  /**
   * Carries the status of every verified callback to the status streams of every process. In memory by default
   * (one process); `svc-checkout/server/redis` shares it between several.
   */
  statusBus?: StatusBus;
  /** The pace of `GET /payments/events`; `false` turns the route off (404: the element polls). */
  streams?: StreamOptions | false;
  /** The timers the status streams schedule with (tests and benches run them on a virtual clock). */
  timers?: Timers;
  /**
   * The client's address, for the per-client limit and `userClientIP`. Default: the socket's address under
   * `toNodeListener`, nothing elsewhere. Behind a proxy you trust, read its header here.
   */
  clientAddress?: (request: Request) => string | undefined;
  /** The leading bits of an IPv6 address that the per-client limits count as one client. Default 64 (a home's /64). */
  ipv6ClientPrefix?: number;
  /**
   * The origins of the shop's pages: a bank account order's `returnUrl` (where 3-D Secure sends the payer back)
   * must be on one, unless the checkout token fixes it, and they may frame the isolated frame of the payer's bank
   * details and codes besides the kit's own origin (its `frame-ancestors`). Never taken from a request's headers.
   */
  returnUrlOrigins?: readonly string[];
  /** How far a callback's `RequestTimestamp` may be from now. Default 300 seconds. */
  callbackToleranceSeconds?: number;
  /** Largest request body accepted. Default 16 KiB; the largest valid create body is well under 8 KiB. */
  maxBodyBytes?: number;
  /** Where problems are reported. Never given a body, a key or a signature. Default `console`. */
  logger?: Logger;
  /** The clock tokens and callbacks are checked against, in milliseconds. */
  now?: () => number;
  /**
   * Where the element's CDN files are read from: an absolute path or a `file:` URL of a folder laid out as the
   * package's `dist/cdn`. Default: the package's own. `false`: the kit serves none (serve them yourself).
   */
  elementFiles?: string | URL | false;
}

export interface MerchantHandler {
  (request: Request): Promise<Response>;
  /** One reconciliation sweep now (for a scheduled job where timers do not outlive a request: serverless, edge). */
  reconcile(): Promise<SweepReport>;
  /** Stops the reconciliation sweeps' timer. */
  close(): void;
  /**
   * Opens a cart's checkout (docs/one-payment.md): where the checkout stands for the amount the order says, and the
   * checkout token the page renders, at the attempt the page starts at. Call it with the cart's own id as `reference`
   * at every render of the payment page, and pass the page's request (`{ request }`) or a key of the client
   * (`{ client }`): it asks the service as a status query does, shared per order and counted against the status
   * limits, and asks nothing when the kit's record proves the cart has no order. `paid`: render the element with
   * `status-only` (the receipt, never a form); `changed`: the cart was paid at another amount (docs/one-payment.md).
   * Its tokens carry what `checkoutToken`'s do.
   */
  openCheckout(order: CheckoutOrder, options?: OpenCheckoutOptions): Promise<OpenedCheckout>;
  /** The element's script as this handler serves it under its base path: its address, integrity and tags. */
  readonly element: ElementScript;
  /**
   * A checkout token signed with this kit's credentials (`issueCheckoutToken`), its `merchantName` the kit's
   * unless the order names one, and marked for test mode when the service is the sandbox (a loopback address): the
   * element then shows the shop's name and its "Test mode" badge with no attribute for either.
   */
  checkoutToken(order: CheckoutOrder, options?: IssueCheckoutTokenOptions): Promise<string>;
}

/** How `openCheckout` counts the page that opens it, and the token it issues. */
export interface OpenCheckoutOptions extends IssueCheckoutTokenOptions {
  /** The page's request: a Web `Request`, or Node's `IncomingMessage` (Express's `req`). Its client is counted. */
  request?: unknown;
  /** Or a key of the client of your own (an address, a session id), counted in its place. */
  client?: string;
}

/** A cart's checkout as the page renders it. */
export interface OpenedCheckout extends CheckoutProgress {
  /** The checkout token for `<svc-checkout checkout-token="…">`. */
  token: string;
}

const ORDER_SOURCES: readonly OrderSource[] = ['checkout-token', 'authorize', 'browser'];

/** Refuses, at start, every configuration in which the browser could decide an order or reach someone else's. */
function checkOrderSource(options: MerchantHandlerOptions, client: ServiceClient): OrderSource {
  const source = options.orders ?? 'checkout-token';
  if (!ORDER_SOURCES.includes(source)) throw new ServiceConfigError(`orders must be one of ${ORDER_SOURCES.join(', ')}`);
  if (source === 'authorize' && (typeof options.authorize !== 'function' || typeof options.authorizeAction !== 'function')) {
    throw new ServiceConfigError(
      "orders: 'authorize' needs an authorize hook that sets each order's amount and reference from your records, " +
        'and an authorizeAction hook that ties status queries to the payer (README, "Your backend")',
    );
  }
  if (source === 'browser' && !isLoopbackUrl(client.baseUrl)) {
    throw new ServiceConfigError(
      "orders: 'browser' sends the amount and reference the browser chose: it is for development against the sandbox " +
        'or a service on a loopback address only. Issue checkout tokens instead (issueCheckoutToken)',
    );
  }
  return source;
}

function checkAddresses(options: MerchantHandlerOptions): void {
  if (typeof options.callbackUrl === 'string' && (!isHttpUrl(options.callbackUrl) || !isLiveAddressAllowed(options.callbackUrl))) {
    throw new ServiceConfigError('callbackUrl must be an absolute https: URL (http: only on a loopback address)');
  }
  for (const origin of options.returnUrlOrigins ?? []) {
    if (!isHttpUrl(origin) || new URL(origin).origin !== origin) throw new ServiceConfigError(`returnUrlOrigins: ${origin} is not an origin`);
  }
}

export function createMerchantHandler(options: MerchantHandlerOptions): MerchantHandler {
  const client = new ServiceClient(options);
  const orderSource = checkOrderSource(options, client);
  checkAddresses(options);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const maxBodyBytes = count(options.maxBodyBytes, 16 * 1024, 'maxBodyBytes', 1);
  const toleranceSeconds = count(options.callbackToleranceSeconds, 300, 'callbackToleranceSeconds', 1);
  const store = options.callbackStore ?? new MemoryCallbackStore();
  for (const method of ['claim', 'complete', 'release'] as const) {
    if (typeof store[method] !== 'function') throw new ServiceConfigError(`callbackStore.${method} must be a function`);
  }
  const now = options.now ?? Date.now;
  // On the kit's clock: a throttle's window and its Retry-After are counted as every other deadline of the kit.
  const throttleStore = options.throttleStore ?? new MemoryThrottleStore({ now });
  if (typeof throttleStore.hit !== 'function') throw new ServiceConfigError('throttleStore.hit must be a function');
  const checkoutStore = options.checkoutStore ?? new MemoryCheckoutStore({ now });
  for (const method of ['read', 'seen', 'forwarding'] as const) {
    if (typeof checkoutStore[method] !== 'function') throw new ServiceConfigError(`checkoutStore.${method} must be a function`);
  }
  const statusBus = options.statusBus ?? new MemoryStatusBus();
  for (const method of ['publish', 'subscribe'] as const) {
    if (typeof statusBus[method] !== 'function') throw new ServiceConfigError(`statusBus.${method} must be a function`);
  }
  const reconciliationStore = options.reconciliationStore ?? new MemoryReconciliationStore();
  for (const method of ['track', 'take', 'reschedule', 'forget'] as const) {
    if (typeof reconciliationStore[method] !== 'function') throw new ServiceConfigError(`reconciliationStore.${method} must be a function`);
  }
  checkScope(options.merchantId, { callbackStore: store, throttleStore, checkoutStore, statusBus, reconciliationStore });
  const reconcileOptions = options.reconcile === false || !options.onCallback ? undefined : resolveReconcileOptions(options.reconcile);
  checkMovedStreamOptions(options.streams || undefined);
  const streamOptions = options.streams === false ? undefined : resolveStreamOptions(options.streams);
  const ipv6ClientPrefix = count(options.ipv6ClientPrefix, DEFAULT_IPV6_CLIENT_PREFIX, 'ipv6ClientPrefix', 1);
  if (!Number.isInteger(ipv6ClientPrefix) || ipv6ClientPrefix > 128) throw new ServiceConfigError('ipv6ClientPrefix must be a whole number of bits, 1 to 128');
  // Also for the merchant's own words sent to the browser (an OrderRejection's message).
  const redact = redactor(options.privateKey);
  const logger = redacting(options.logger ?? console, redact);
  const credentials = { merchantId: options.merchantId, privateKey: options.privateKey };

  // Against the sandbox (a service on this machine), callbacks come to this kit's own loopback address by default.
  const serviceIsLocal = isLoopbackUrl(client.baseUrl);
  const callbackPath = `${basePath}${MERCHANT_PATHS.callbacks}`;
  const callbackUrlFor = (request: KitRequest): string | undefined =>
    options.callbackUrl === false ? undefined : (options.callbackUrl ?? (serviceIsLocal ? loopbackOrigin(request) : undefined)?.concat(callbackPath));
  // The shop's pages may frame the isolated frame, as they are where 3-D Secure returns payers.
  const elementFiles = new ElementFiles(options.elementFiles, basePath, options.returnUrlOrigins);

  // Set below: the status route tells the hub what it saw, and the hub needs the routes' order tokens.
  let hub: StatusHub | undefined;
  const payments = paymentRoutes({
    client,
    credentials,
    orderSource,
    callbackUrlFor,
    merchantName: options.merchantName,
    returnUrlOrigins: options.returnUrlOrigins ?? [],
    authorize: options.authorize,
    authorizeAction: options.authorizeAction,
    clientAddress: options.clientAddress,
    ipv6ClientPrefix,
    statusSharedMs: options.statusSharedMs === false ? false : count(options.statusSharedMs, STATUS_SHARED_MS, 'statusSharedMs', 0),
    throttleStore,
    checkoutStore,
    limits: resolveLimits(options.limits),
    logger,
    redact,
    now,
    observeStatus: (data) => hub?.observe(data),
    observeCreated: ({ expireAt, ...order }) => {
      if (!reconciler) return;
      void reconciler.track({ ...order, deadline: now() + (expireAt ?? LIMITS.defaultExpireMinutes) * 60_000 });
      // Sweeps start with the first order kept, inside a request: some runtimes refuse timers outside one.
      reconciler.start();
    },
  });
  // Whatever the kit hears of an order, here or in another process, is newer than a status answer it shares.
  statusBus.subscribe({ update: (update) => payments.heard(update) });
  const newHub = (bus: StatusBus, resolved: NonNullable<typeof streamOptions>) =>
    new StatusHub({
      query: payments.queryStatus,
      bus,
      orderTokenFor: payments.orderTokenFor,
      options: resolved,
      timers: options.timers ?? systemTimers,
      now,
      logger,
    });
  if (streamOptions) hub = newHub(statusBus, streamOptions);
  const publish = (event: CallbackEvent, source: StatusUpdate['source']) => {
    const { orderNo, reference, status, failureCode, failureReason } = event.body;
    const update: StatusUpdate = { orderNo, reference, status, source, at: now() };
    if (failureCode) update.failureCode = failureCode;
    if (failureReason) update.failureReason = failureReason;
    void Promise.resolve()
      .then(() => statusBus.publish(update))
      .catch((error: unknown) => logger.warn(`svc-checkout: the status bus refused an update: ${errorMessage(error)}`));
  };
  const handOverOptions = {
    store,
    logger,
    now,
    onCallback: options.onCallback,
    onSettled: (event: CallbackEvent) => reconciler?.settled(event.body.orderNo),
    // A payment of a checkout: the service is asked whether another attempt of it was paid too (a second payment).
    prepare: async (event: CallbackEvent): Promise<CallbackEvent> => {
      if (event.body.status !== 'SUCCESS' || !event.checkout) return event;
      const alsoPaid = await payments.otherPaid(event.checkout, event.body.country, event.body.reference);
      if (alsoPaid.length > 0) logger.warn(`svc-checkout: checkout ${logValue(event.checkout.reference)} is paid twice: ${[event.body.reference, ...alsoPaid].map(logValue).join(', ')}`);
      return { ...event, checkout: { ...event.checkout, alsoPaid } };
    },
  };
  const receiveCallback = callbackReceiver({
    ...credentials,
    ...handOverOptions,
    checkoutStore,
    toleranceSeconds,
    now,
    onVerified: (event) => publish(event, 'callback'),
  });
  const reconciler = reconcileOptions
    ? new Reconciler({
        store: reconciliationStore,
        throttleStore,
        query: (query) => client.queryStatus(query, { retries: 0 }),
        deliver: handOver(handOverOptions),
        found: (event) => publish(event, 'query'),
        options: reconcileOptions,
        now,
        logger,
      })
    : undefined;
  if (reconciler) {
    // A settled status the kit's own queries saw (its callback late or lost): the sweep hands it over at once.
    statusBus.subscribe({
      update: (update) => {
        if (update.source === 'query' && isTerminalStatus(update.status)) reconciler.settling(update.orderNo);
      },
    });
  }

  const health = healthAnswer(client, [store, throttleStore, checkoutStore, statusBus, reconciliationStore]);

  /** `GET /payments/events`: proved like the status route; tokens in headers, or in the query string for EventSource. */
  async function events(request: Request): Promise<Response> {
    if (!hub) return problem(404, 'no such path');
    const search = new URL(request.url).searchParams;
    const token = search.get(STREAM_QUERY.token);
    const tokenOf = (kind: keyof typeof TOKEN_KINDS) => (token?.startsWith(`${TOKEN_KINDS[kind]}.`) ? token : null);
    const value: Record<string, unknown> = {};
    for (const field of ['reference', 'orderNo', 'country']) {
      const given = search.get(field);
      if (given !== null) value[field] = given;
    }
    const proven = await payments.proveStatusQuery(value, request, {
      orderToken: request.headers.get(ORDER_TOKEN_HEADER) ?? tokenOf('order'),
      checkoutToken: request.headers.get(CHECKOUT_TOKEN_HEADER) ?? tokenOf('checkout'),
    });
    if (!proven.ok) return toResponse(proven.response);
    // Where a request's I/O is its own (workerd), a stream shares no query and hears no callback of another
    // request: it gets a hub of its own, whose status queries bring it what callbacks bring it elsewhere.
    if (hub.finished(request, proven.proof)) return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
    const admitted = await payments.admitStream(request, proven.proof);
    if (!admitted.ok) return toResponse(admitted.response);
    const streamHub = requestScopedIo && streamOptions ? newHub(new MemoryStatusBus(), streamOptions) : hub;
    return streamHub.open(request, proven.proof, admitted.release);
  }

  const failed = (error: unknown) => {
    logger.error(`svc-checkout: request failed: ${errorMessage(error)}`);
    return problemAnswer(500, 'internal error');
  };

  /**
   * An element call: its body as JSON to its route. Traced when someone listens, a failure answered 500 within the
   * trace; otherwise exactly as without channels (the paths below answer a failure).
   */
  const json = (route: Route, operation: ElementOperation) => {
    const call = (request: KitRequest, body: Uint8Array, trace?: RequestTrace) =>
      withJson(body, (value) => {
        if (trace && isPlainObject(value) && isPayMethod(value['payMethod'])) trace.method = value['payMethod'];
        return route(value, request);
      });
    return (request: KitRequest, body: Uint8Array) =>
      listened(requestChannel) ? traceRequest(operation, (trace) => call(request, body, trace).catch(failed)) : call(request, body);
  };

  /** A call the isolated frame sends itself (frame-calls.ts): its answer readable there. */
  const fromFrame = (operation: ElementOperation, call: (request: KitRequest, body: Uint8Array) => Promise<Answer>) => async (request: KitRequest, body: Uint8Array) =>
    withFrameCallHeaders(operation, request.headers.get('origin'), await call(request, body));

  /** The element's calls, by operation: answers, which the Web path wraps in a Response and the Node adapter writes. */
  const elementCalls: Record<ElementOperation, (request: KitRequest, body: Uint8Array) => Promise<Answer>> = {
    create: fromFrame('create', json(payments.routes.create, 'create')),
    otp: fromFrame('otp', json(payments.routes.otp, 'otp')),
    pin: fromFrame('pin', json(payments.routes.pin, 'pin')),
    resendOtp: json(payments.routes.resendOtp, 'resendOtp'),
    status: json(payments.routes.status, 'status'),
  };
  const web = (call: (request: KitRequest, body: Uint8Array) => Promise<Answer>) => async (request: Request, body: Uint8Array) =>
    toResponse(await call(request, body));

  const posts: Record<ElementOperation | 'callbacks', (request: Request, body: Uint8Array) => Promise<Response>> = {
    create: web(elementCalls.create),
    otp: web(elementCalls.otp),
    pin: web(elementCalls.pin),
    resendOtp: web(elementCalls.resendOtp),
    status: web(elementCalls.status),
    callbacks: receiveCallback,
  };

  /** Under toNodeListener: the element's calls, as the Web path below serves them, without a Request or Response. */
  const fastCalls = new Map(
    Object.entries(elementCalls).map(([operation, call]) => [operation, (request: KitRequest, body: Uint8Array) => call(request, body).catch(failed)]),
  );
  // A request target that is exactly a call's path needs no URL parsed; any other goes through operationFor.
  const fastPaths = new Map([...fastCalls].map(([operation, call]) => [`${basePath}${MERCHANT_PATHS[operation as ElementOperation]}`, call]));
  const fastPath: NodeFastPath = {
    maxBodyBytes,
    failed,
    exact: (target) => fastPaths.get(target),
    route: (pathname) => {
      const operation = operationFor(pathname, basePath);
      return operation === undefined ? undefined : fastCalls.get(operation);
    },
  };

  /** What the kit's own tokens add to an order: its merchant name unless the order names one, and test mode against the sandbox. */
  const withKitClaims = (order: CheckoutOrder): CheckoutOrder => ({
    ...(options.merchantName !== undefined ? { merchantName: options.merchantName } : {}),
    ...(serviceIsLocal ? { sandbox: true } : {}),
    ...order,
  });

  const openCheckout: MerchantHandler['openCheckout'] = async (order, given = {}) => {
    if (orderSource !== 'checkout-token') throw new ServiceConfigError("openCheckout issues checkout tokens: it needs orders: 'checkout-token' (the default)");
    const { request, client: clientKey, ...issue } = given;
    // Checked before the service is asked: a reference or amount the token would refuse is said at once.
    await issueCheckoutToken(credentials, withKitClaims(order), { now: now(), ...issue });
    const { startedReference, ...progress } = await payments.progress(order, { request, client: clientKey });
    const claims = { ...order, attempt: progress.attempt, ...(progress.started ? { started: startedReference ?? true } : {}) };
    const token = await issueCheckoutToken(credentials, withKitClaims(claims), { now: now(), ...issue });
    return { ...progress, token };
  };

  const handle = async function handle(request: Request): Promise<Response> {
    let operation: MerchantOperation | undefined;
    try {
      const pathname = new URL(request.url).pathname;
      const file = pathname.startsWith(`${basePath}/`) ? elementFiles.serve(pathname.slice(basePath.length), request) : undefined;
      if (file) return file;
      operation = operationFor(pathname, basePath);
      if (!operation) return problem(404, 'no such path');
      if (operation === 'returnPage') {
        if (request.method !== 'GET' && request.method !== 'HEAD') return problem(405, 'only GET is served here', {}, { Allow: 'GET' });
        return await returnPage();
      }
      if (operation === 'events') {
        if (request.method !== 'GET') return problem(405, 'only GET is served here', {}, { Allow: 'GET' });
        return await (listened(requestChannel) ? traceStreamRequest(() => events(request)) : events(request));
      }
      if (operation === 'health') {
        if (request.method !== 'GET' && request.method !== 'HEAD') return problem(405, 'only GET is served here', {}, { Allow: 'GET, HEAD' });
        return await health(request.method);
      }
      if (request.method === 'OPTIONS') {
        const preflight = framePreflight(operation, request);
        if (preflight) return preflight;
      }
      if (request.method !== 'POST') return problem(405, 'only POST is served here', {}, { Allow: 'POST' });
      if (operation === 'timings') return await receiveTimings(request);
      if (operation !== 'callbacks' && !JSON_TYPE.test(request.headers.get('content-type') ?? '')) {
        return frameReadable(operation, request, problem(415, 'the body must be JSON (Content-Type: application/json)'));
      }
      const body = await readBody(request, maxBodyBytes);
      if (body === 'too-large') return frameReadable(operation, request, problem(413, `the body is larger than ${maxBodyBytes} bytes`));
      return await posts[operation](request, body);
    } catch (error) {
      return frameReadable(operation, request, toResponse(failed(error)));
    }
  };
  const nothingSwept: SweepReport = { asked: 0, handled: 0, forgotten: 0 };
  const checkoutToken: MerchantHandler['checkoutToken'] = (order, tokenOptions) => issueCheckoutToken(credentials, withKitClaims(order), tokenOptions);
  return Object.defineProperties(handle, {
    [NODE_FAST_PATH]: { value: fastPath },
    reconcile: { value: async () => (reconciler ? await reconciler.sweep() : { ...nothingSwept }), enumerable: true },
    close: { value: () => reconciler?.stop(), enumerable: true },
    openCheckout: { value: openCheckout, enumerable: true },
    element: { value: elementFiles, enumerable: true },
    checkoutToken: { value: checkoutToken, enumerable: true },
  }) as MerchantHandler;
}

/** Stores scoped to a merchant (`svc-checkout/server/redis` scopes its keys and channel) must be this merchant's. */
function checkScope(merchantId: string, stores: Record<string, unknown>): void {
  for (const [name, store] of Object.entries(stores)) {
    const scope = (store as { merchantId?: unknown }).merchantId;
    if (scope !== undefined && scope !== merchantId) {
      throw new ServiceConfigError(`${name} is scoped to merchant ${String(scope)}, not to this handler's merchant ${merchantId}: connect one store per merchant`);
    }
  }
}

/**
 * The origin this request reached the kit at, when it is a loopback address: the socket's own end under
 * toNodeListener (no header can change it), else the request's URL (other runtimes know no socket).
 */
function loopbackOrigin(request: KitRequest): string | undefined {
  const local = rememberedLocalOrigin(request);
  const origin = local === undefined ? new URL(request.url).origin : local;
  return origin !== null && isLoopbackHost(new URL(origin).hostname) ? origin : undefined;
}

type ElementOperation = Exclude<MerchantOperation, 'callbacks' | 'returnPage' | 'events' | 'health' | 'timings'>;

function operationFor(pathname: string, basePath: string): MerchantOperation | undefined {
  if (basePath && pathname !== basePath && !pathname.startsWith(`${basePath}/`)) return undefined;
  const path = pathname.slice(basePath.length).replace(/\/+$/, '');
  return (Object.keys(MERCHANT_PATHS) as MerchantOperation[]).find((operation) => MERCHANT_PATHS[operation] === path);
}
