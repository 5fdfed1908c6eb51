/**
 * The merchant endpoint the element talks to (DESIGN.md §3), as a Web-standard `(Request) => Promise<Response>`
 * so that it runs on Node (through `toNodeListener`), serverless and edge runtimes alike. This file puts the kit
 * together: its options resolved once (src/server/config), the element's calls (payments/), the service's callbacks
 * (callbacks/), the status streams (streams/) and reconciliation (reconciliation/), served through one route table
 * (routes/).
 *
 * Every business outcome is HTTP 200 with the service's envelope, unchanged when it came from the service.
 * Non-200 answers are for transport problems only: 404, 405, 413, 415, and on the callback route 401/400 (refused),
 * 500 (`onCallback` failed) and 503 (the same callback is being handled): the service sends those again.
 */
import { isTerminalStatus, LIMITS, MERCHANT_PATHS } from '../core/index.js';
import { isLoopbackHost } from '../core/addresses.js';
import { callbackReceiver } from './callbacks/receiver.js';
import { handOver, type CallbackEvent, type HandOverOptions } from './callbacks/hand-over.js';
import { kitCheckouts, type OpenCheckoutOptions, type OpenedCheckout } from './checkouts/open.js';
import { checkoutOfRecord } from './checkouts/walk.js';
import { resolveHandlerConfig, type MerchantHandlerOptions } from './config/handler.js';
import { ServiceConfigError } from './config/errors.js';
import { ElementFiles, type ElementScript } from './element/element-files.js';
import { errorMessage, logValue, NODE_FAST_PATH, problemAnswer, type KitRequest } from './http/http.js';
import { healthAnswer } from './observability/health.js';
import { timingsRoute } from './observability/timings.js';
import { admit } from './limits/throttle.js';
import { paymentRoutes } from './payments/routes.js';
import { Reconciler, type SweepReport } from './reconciliation/reconciler.js';
import { returnPage } from './element/return-page.js';
import { elementCalls, nodeFastPath } from './routes/element-calls.js';
import { webHandler } from './routes/web.js';
import { rememberedLocalOrigin } from './runtime/client-address.js';
import { kitOrigins, type PublicOriginConfig } from './runtime/public-origin.js';
import { ServiceClient } from './service/client.js';
import { MemoryStatusBus } from './stores/status-bus/memory.js';
import type { StatusBus, StatusUpdate } from './stores/status-bus/port.js';
import { eventsRoute } from './streams/events-route.js';
import { StatusHub } from './streams/hub.js';
import { systemTimers } from './runtime/timers.js';
import type { CheckoutOrder, IssueCheckoutTokenOptions } from './tokens/tokens.js';
import { createPaymentLink, type PaymentLink, type PaymentLinkOptions, type PaymentLinkOrder } from './links/link.js';
import { payQrRoute, payRoute } from './links/pay-route.js';
import { handoffRoute } from './links/handoff-route.js';

export { OrderRejection } from './payments/rejection.js';
export type { ActionOperation, AuthorizeActionHook, AuthorizeHook, MerchantHandlerOptions, OrderSource } from './config/handler.js';
export type { OpenClient } from './payments/status.js';
export type { CallbackEvent } from './callbacks/hand-over.js';
export type { OpenCheckoutOptions, OpenedCheckout } from './checkouts/open.js';
export type { ElementScript, ElementTagOptions } from './element/element-files.js';

/** A link made by the handler: its shop address and base path default to the handler's own. */
export type HandlerPaymentLinkOptions = Omit<PaymentLinkOptions, 'shopUrl' | 'basePath'> & Partial<Pick<PaymentLinkOptions, 'shopUrl'>>;

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
  /**
   * A payment link for a cart's checkout (docs/pay-links.md): the address of this kit's pay page for it, sealed with
   * this kit's credentials, its merchant name the kit's unless the order names one. `shopUrl` defaults to the kit's
   * `publicOrigin`; the base path is the kit's own.
   */
  paymentLink(order: PaymentLinkOrder, options?: HandlerPaymentLinkOptions): Promise<PaymentLink>;
}

export function createMerchantHandler(options: MerchantHandlerOptions): MerchantHandler {
  const config = resolveHandlerConfig(options);
  const { logger, now, stores } = config;
  const client = new ServiceClient(config.service);
  // The shop's pages may frame the isolated frame, as they are where 3-D Secure returns payers; it connects to the kit
  // at the origins its configuration names (no request header names them: src/server/runtime/public-origin.ts).
  let unnamed = false;
  const frameOrigins = (request: Request) => {
    const origins = kitOrigins(config, request);
    if (origins.length === 0 && !unnamed) {
      unnamed = true;
      logger.warn("svc-checkout: the isolated frame's connect-src names no origin of the kit, and WebKit then refuses its calls: set publicOrigin");
    }
    return origins;
  };
  const elementFiles = new ElementFiles(config.elementFiles, config.basePath, config.returnUrlOrigins, frameOrigins);

  // Against the sandbox (a service on this machine), callbacks come to this kit's own loopback address by default.
  const callbackPath = `${config.basePath}${MERCHANT_PATHS.callbacks}`;
  const callbackUrlFor = (request: KitRequest): string | undefined =>
    config.callbackUrl === false ? undefined : (config.callbackUrl ?? (config.serviceIsLocal ? loopbackOrigin(request, config) : undefined)?.concat(callbackPath));

  // Set below: the status route tells the hub what it saw, and a create tells reconciliation what it made.
  let hub: StatusHub | undefined;
  let reconciler: Reconciler | undefined;
  const payments = paymentRoutes({
    config,
    client,
    callbackUrlFor,
    observeStatus: (data) => hub?.observe(data),
    observeAction: (order) => payerActed(order),
    observeCreated: ({ expireAt, learnt, ...order }) => {
      // A create answered here is the payer's action on the order: its streams, in any process, poll briskly.
      if (!learnt) payerActed(order);
      if (!reconciler) return;
      void reconciler.track({ ...order, deadline: now() + (expireAt ?? LIMITS.defaultExpireMinutes) * 60_000 }, learnt);
      // Sweeps start with the first order kept, inside a request: some runtimes refuse timers outside one.
      reconciler.start();
    },
  });
  // Whatever the kit hears of an order, here or in another process, is newer than a status answer it shares.
  stores.statusBus.subscribe({ update: (update) => payments.heard(update) });
  const newHub = (bus: StatusBus) =>
    new StatusHub({ query: payments.queryStatus, bus, orderTokenFor: payments.orderTokenFor, options: config.streams!, timers: config.timers ?? systemTimers, now, logger });
  if (config.streams) hub = newHub(stores.statusBus);

  /** What the kit learnt of an order reaches every payer's stream, in this process and the others. */
  const publish = (event: CallbackEvent, source: StatusUpdate['source']) => {
    const { orderNo, reference, status, failureCode, failureReason } = event.body;
    const update: StatusUpdate = { orderNo, reference, status, source, at: now() };
    if (failureCode) update.failureCode = failureCode;
    if (failureReason) update.failureReason = failureReason;
    void Promise.resolve()
      .then(() => stores.statusBus.publish(update))
      .catch((error: unknown) => logger.warn(`svc-checkout: the status bus refused an update: ${errorMessage(error)}`));
  };
  /** The payer acted on an order: a cue for its streams in every process (none while the bus is down: they poll anyway). */
  function payerActed({ orderNo, reference }: { orderNo: string; reference: string }): void {
    if (!hub || stores.statusBus.live === false) return;
    void Promise.resolve()
      .then(() => stores.statusBus.publish({ orderNo, reference, status: 'PENDING', source: 'payer', at: now() }))
      .catch(() => undefined); // a cue only: the streams keep their own pace without it
  }
  const handOverOptions: HandOverOptions = {
    store: stores.callbacks,
    logger,
    now,
    onCallback: config.onCallback,
    onSettled: (event) => reconciler?.settled(event.body.orderNo),
    // A payment of a checkout: the service is asked whether another attempt of it was paid too (a second payment).
    prepare: async (event) => {
      if (event.body.status !== 'SUCCESS' || !event.checkout) return event;
      const alsoPaid = await payments.otherPaid(event.checkout, event.body.country, event.body.reference);
      if (alsoPaid.length > 0) logger.warn(`svc-checkout: checkout ${logValue(event.checkout.reference)} is paid twice: ${[event.body.reference, ...alsoPaid].map(logValue).join(', ')}`);
      return { ...event, checkout: { ...event.checkout, alsoPaid } };
    },
  };
  if (config.reconcile) {
    const sweeper = new Reconciler({
      store: stores.reconciliation,
      throttleStore: stores.throttle,
      query: (query) => client.queryStatus(query, { retries: 0 }),
      deliver: handOver(handOverOptions),
      found: (event) => publish(event, 'query'),
      checkoutOf: config.orderSource === 'checkout-token' ? (order) => checkoutOfRecord(order.reference, stores.checkouts) : undefined,
      options: config.reconcile,
      now,
      logger,
    });
    reconciler = sweeper;
    // A settled status the kit's own queries saw (its callback late or lost): the sweep hands it over at once.
    stores.statusBus.subscribe({
      update: (update) => {
        if (update.source === 'query' && isTerminalStatus(update.status)) sweeper.settling(update.orderNo);
      },
    });
  }

  const failed = (error: unknown) => {
    logger.error(`svc-checkout: request failed: ${errorMessage(error)}`);
    return problemAnswer(500, 'internal error');
  };
  const calls = elementCalls(payments.routes, failed);
  const health = healthAnswer(client, Object.values(stores));
  // A beacon's timings count against the client's limit and the kit's, in the throttle store (shared with Redis).
  const receiveTimings = timingsRoute({
    admit: async (request, count) =>
      (await admit(stores.throttle, config.limits, [['timingsPerClient', payments.clientOf(request)], ['timings', 'all']], count)) === undefined,
  });
  const receiveCallback = callbackReceiver({
    ...config.credentials,
    ...handOverOptions,
    checkoutStore: stores.checkouts,
    toleranceSeconds: config.callbackToleranceSeconds,
    now,
    onVerified: (event) => publish(event, 'callback'),
  });
  const handle = webHandler({
    basePath: config.basePath,
    maxBodyBytes: config.maxBodyBytes,
    files: (path, request) => elementFiles.serve(path, request),
    failed,
    element: calls,
    handlers: {
      // A signed route: its body is always read (as it came, which is what was signed).
      callbacks: (request, body) => receiveCallback(request, body ?? new Uint8Array()),
      events: eventsRoute({ hub, ownHub: () => newHub(new MemoryStatusBus()), statuses: payments }),
      returnPage: () => returnPage(),
      health: (request) => health(request.method),
      timings: (request) => receiveTimings(request),
      pay: (request) => servePay(request),
      payQr: (request) => serveQr(request),
      handoff: (request) => serveHandoff(request),
    },
  });
  const checkouts = kitCheckouts(config, payments);
  const servePay = payRoute({ config, element: elementFiles, checkoutToken: checkouts.checkoutToken });
  const serveQr = payQrRoute(config);
  const serveHandoff = handoffRoute({ config, clientOf: (request) => payments.clientOf(request) });
  const paymentLink = (order: PaymentLinkOrder, given: HandlerPaymentLinkOptions = {}) => {
    // A link's page carries its order in a checkout token: a kit whose orders come from elsewhere would not hold to it.
    if (config.orderSource !== 'checkout-token') throw new ServiceConfigError("paymentLink makes links whose pay page's orders come from checkout tokens: it needs orders: 'checkout-token' (the default)");
    const shopUrl = given.shopUrl ?? config.publicOrigins[0];
    if (shopUrl === undefined) throw new ServiceConfigError('paymentLink needs the shop\'s public address: set publicOrigin, or pass { shopUrl }');
    const named = config.merchantName !== undefined && order.merchantName === undefined ? { ...order, merchantName: config.merchantName } : order;
    return createPaymentLink(config.credentials, named, { ...given, shopUrl, basePath: config.basePath, now: given.now ?? now() });
  };
  const nothingSwept: SweepReport = { asked: 0, handled: 0, forgotten: 0 };
  return Object.defineProperties(handle, {
    [NODE_FAST_PATH]: { value: nodeFastPath(calls, config.basePath, config.maxBodyBytes, failed) },
    reconcile: { value: async () => (reconciler ? await reconciler.sweep() : { ...nothingSwept }), enumerable: true },
    close: { value: () => reconciler?.stop(), enumerable: true },
    openCheckout: { value: checkouts.openCheckout, enumerable: true },
    element: { value: elementFiles, enumerable: true },
    checkoutToken: { value: checkouts.checkoutToken, enumerable: true },
    paymentLink: { value: paymentLink, enumerable: true },
  }) as MerchantHandler;
}

/**
 * The origin this request reached the kit at, when it is a loopback address: the socket's own end under
 * toNodeListener (no header can change it); other runtimes know no socket, and the request's URL is its `Host`: there,
 * the first loopback origin the configuration names (or, behind a proxy the shop trusts, the proxy's). A server
 * listens at one or two origins: the last one's answer is kept, so that a create parses no URL for it.
 */
function loopbackOrigin(request: KitRequest, config: PublicOriginConfig): string | undefined {
  const local = rememberedLocalOrigin(request);
  if (local === undefined) return kitOrigins(config, request).find((origin) => isLoopbackHost(new URL(origin).hostname));
  if (local === null) return undefined;
  if (local !== lastOrigin.origin) lastOrigin = { origin: local, loopback: isLoopbackHost(new URL(local).hostname) };
  return lastOrigin.loopback ? local : undefined;
}
let lastOrigin: { origin: string; loopback: boolean } = { origin: '', loopback: false };
