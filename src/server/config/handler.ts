/**
 * `createMerchantHandler`'s options, resolved once into the kit's configuration (`KitConfig`): every option checked
 * here, in one message style (errors.ts), its default given, the stores the shop did not give made (in memory), and
 * the result frozen. The rest of the kit reads the configuration and checks nothing of it again.
 */
import type { CreatePaymentRequest, Timers } from '../../core/index.js';
import { isLoopbackUrl } from '../../core/addresses.js';
import { redacting, redactor, type Logger } from '../http/http.js';
import { DEFAULT_IPV6_CLIENT_PREFIX } from '../runtime/client-address.js';
import type { CallbackEvent } from '../callbacks/hand-over.js';
import { MemoryCallbackStore } from '../stores/callbacks/memory.js';
import type { CallbackStore } from '../stores/callbacks/port.js';
import { MemoryCheckoutStore } from '../stores/checkouts/memory.js';
import type { CheckoutStore } from '../stores/checkouts/port.js';
import { MemoryReconciliationStore } from '../stores/reconciliation/memory.js';
import type { ReconciliationStore } from '../stores/reconciliation/port.js';
import { MemoryStatusBus } from '../stores/status-bus/memory.js';
import type { StatusBus } from '../stores/status-bus/port.js';
import { MemoryTicketStore } from '../stores/tickets/memory.js';
import type { TicketStore } from '../stores/tickets/port.js';
import { MemoryThrottleStore } from '../stores/throttle/memory.js';
import type { ThrottleStore } from '../stores/throttle/port.js';
import type { ThrottleLimits } from '../limits/table.js';
import { booleanOption, choiceOption, folderOption, hookOption, liveUrlOption, numberOption, originOption, originsOption, storeOption } from './checks.js';
import { optionError, ServiceConfigError, withoutSecrets } from './errors.js';
import { resolveLimits } from './limits.js';
import { resolveReconcileOptions, type ReconcileOptions, type ResolvedReconcileOptions } from './reconcile.js';
import { resolveServiceConfig, type ServiceClientOptions, type ServiceConfig } from './service.js';
import { resolveStreamOptions, type ResolvedStreamOptions, type StreamOptions } from './streams.js';

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

/** How long a status answer is shared with the queries of the same order that come after it, by default. */
export const STATUS_SHARED_MS = 1_000;

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
  /**
   * Where and how a reference code is paid, as the pay page tells the payer (docs/pay-links.md), in English and Arabic:
   * the service's documents do not say where codes are paid, so the shop says it. Default: plain words of the kit's.
   */
  whereToPay?: { en: string; ar: string };
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
  /**
   * Where the orders decided for tickets wait for the isolated frame's create (with `orders: 'authorize'` or
   * `'browser'`: docs/isolated-fields.md); memory by default, a shared store (`svc-checkout/server/redis`) across
   * processes.
   */
  ticketStore?: TicketStore;
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
  /**
   * The origin browsers reach this handler at (`https://shop.example`): the isolated frame's page names it in its
   * `connect-src` (WebKit matches nothing with `'self'` there). Default: the origin of `callbackUrl`, and the
   * `returnUrlOrigins`; without any, the kit's own socket when it is loopback. Never taken from a request's headers
   * unless `trustProxy`.
   */
  publicOrigin?: string;
  /**
   * `true`: the kit stands behind a proxy of yours that sets `X-Forwarded-Proto` and `X-Forwarded-Host` (or `Host`),
   * and replaces whatever a client sent in them; then, without `publicOrigin`, the kit names itself by the origin they
   * say. Default `false`: the kit writes nothing from those headers.
   */
  trustProxy?: boolean;
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

/** The kit's stores, given or made in memory. */
export interface KitStores {
  readonly callbacks: CallbackStore;
  readonly throttle: ThrottleStore;
  readonly checkouts: CheckoutStore;
  readonly tickets: TicketStore;
  readonly statusBus: StatusBus;
  readonly reconciliation: ReconciliationStore;
}

/** What the kit reads of its options, resolved and frozen. */
export interface KitConfig {
  readonly service: ServiceConfig;
  readonly credentials: { readonly merchantId: string; readonly privateKey: string };
  /** The service is on this machine (the sandbox): callbacks to the kit's own loopback address, test mode. */
  readonly serviceIsLocal: boolean;
  readonly basePath: string;
  readonly orderSource: OrderSource;
  /** The kit's callback address; `false`: none, the merchant's webhook; undefined: the kit's own, against the sandbox. */
  readonly callbackUrl: string | false | undefined;
  readonly merchantName: string | undefined;
  /** The shop's words on where reference codes are paid, for the pay page; its defaults when undefined. */
  readonly whereToPay: Readonly<{ en: string; ar: string }> | undefined;
  readonly authorize: AuthorizeHook | undefined;
  readonly authorizeAction: AuthorizeActionHook | undefined;
  readonly onCallback: ((event: CallbackEvent) => void | Promise<void>) | undefined;
  readonly stores: KitStores;
  readonly limits: ThrottleLimits;
  /** Undefined: reconciliation is off (no `onCallback`, or `reconcile: false`). */
  readonly reconcile: ResolvedReconcileOptions | undefined;
  /** Undefined: the status stream is off (`streams: false`). */
  readonly streams: ResolvedStreamOptions | undefined;
  readonly timers: Timers | undefined;
  readonly statusSharedMs: number | false;
  readonly clientAddress: ((request: Request) => string | undefined) | undefined;
  readonly ipv6ClientPrefix: number;
  readonly returnUrlOrigins: readonly string[];
  /**
   * The origins the kit names itself by in what it writes (the isolated frame's `connect-src`), from its configuration:
   * `publicOrigin`, else the origins of `callbackUrl` and `returnUrlOrigins`. Empty: none configured.
   */
  readonly publicOrigins: readonly string[];
  /** `publicOrigin` was given: nothing else names the kit. */
  readonly publicOriginGiven: boolean;
  /** The shop's proxy sets `X-Forwarded-*`: the kit may name itself by them when `publicOrigin` is not given. */
  readonly trustProxy: boolean;
  readonly callbackToleranceSeconds: number;
  readonly maxBodyBytes: number;
  /** The shop's logger, with the private key redacted from every line. */
  readonly logger: Logger;
  /** Removes the private key from a text (the merchant's own words sent to a browser, too). */
  readonly redact: (text: string) => string;
  readonly now: () => number;
  /** Where the element's files are (a folder's file: URL); `false`: none served; undefined: the package's own. */
  readonly elementFiles: URL | false | undefined;
}

const ORDER_SOURCES = ['checkout-token', 'authorize', 'browser'] as const;

/** Refuses, at start, every configuration in which the browser could decide an order or reach someone else's. */
function orderSourceOf(options: MerchantHandlerOptions, service: ServiceConfig): OrderSource {
  const source = choiceOption('orders', options.orders, ORDER_SOURCES, 'checkout-token');
  if (source === 'authorize' && (typeof options.authorize !== 'function' || typeof options.authorizeAction !== 'function')) {
    throw new ServiceConfigError(
      "orders: 'authorize' needs an authorize hook that sets each order's amount and reference from your records, " +
        'and an authorizeAction hook that ties status queries to the payer (README, "Your backend")',
    );
  }
  if (source === 'browser' && !isLoopbackUrl(service.baseUrl)) {
    throw new ServiceConfigError(
      "orders: 'browser' sends the amount and reference the browser chose: it is for development against the sandbox " +
        'or a service on a loopback address only. Issue checkout tokens instead (issueCheckoutToken)',
    );
  }
  return source;
}

/** The stores, the shop's own checked, the others made in memory on the kit's clock. */
function storesOf(options: MerchantHandlerOptions, now: () => number): KitStores {
  const stores: KitStores = {
    callbacks: storeOption('callbackStore', options.callbackStore ?? new MemoryCallbackStore(), ['claim', 'complete', 'release']),
    // On the kit's clock: a throttle's window and its Retry-After are counted as every other deadline of the kit.
    throttle: storeOption('throttleStore', options.throttleStore ?? new MemoryThrottleStore({ now }), ['hit']),
    checkouts: storeOption('checkoutStore', options.checkoutStore ?? new MemoryCheckoutStore({ now }), ['read', 'seen', 'forwarding', 'noted']),
    tickets: storeOption('ticketStore', options.ticketStore ?? new MemoryTicketStore({ now }), ['keep', 'read', 'take']),
    statusBus: storeOption('statusBus', options.statusBus ?? new MemoryStatusBus(), ['publish', 'subscribe']),
    reconciliation: storeOption('reconciliationStore', options.reconciliationStore ?? new MemoryReconciliationStore(), ['track', 'take', 'reschedule', 'forget']),
  };
  // Stores scoped to a merchant (`svc-checkout/server/redis` scopes its keys and channel) must be this merchant's.
  const names = { callbacks: 'callbackStore', throttle: 'throttleStore', checkouts: 'checkoutStore', tickets: 'ticketStore', statusBus: 'statusBus', reconciliation: 'reconciliationStore' } as const;
  for (const [key, store] of Object.entries(stores) as [keyof KitStores, unknown][]) {
    const scope = (store as { merchantId?: unknown }).merchantId;
    if (scope !== undefined && scope !== options.merchantId) {
      throw new ServiceConfigError(
        `${names[key]} is scoped to merchant ${String(scope)}, not to this handler's merchant ${options.merchantId}: connect one store per merchant`,
      );
    }
  }
  return Object.freeze(stores);
}

export function resolveHandlerConfig(options: MerchantHandlerOptions): KitConfig {
  if (typeof options !== 'object' || options === null) throw optionError('createMerchantHandler options', 'an object', options);
  const service = resolveServiceConfig(options);
  return withoutSecrets(service.privateKey, () => resolve(options, service));
}

function resolve(options: MerchantHandlerOptions, service: ServiceConfig): KitConfig {
  const now = hookOption('now', options.now) ?? Date.now;
  const redact = redactor(service.privateKey);
  if (options.logger !== undefined && (typeof options.logger?.warn !== 'function' || typeof options.logger?.error !== 'function')) {
    throw optionError('logger', 'an object with warn and error (console will do)', options.logger);
  }
  if (options.basePath !== undefined && (typeof options.basePath !== 'string' || (options.basePath !== '' && !options.basePath.startsWith('/')))) {
    throw optionError('basePath', "a path that starts with / (such as '/checkout')", options.basePath);
  }
  if (options.merchantName !== undefined && typeof options.merchantName !== 'string') throw optionError('merchantName', 'text', options.merchantName);
  const words = (text: unknown) => typeof text === 'string' && text.trim() !== '' && text.length <= 500;
  if (options.whereToPay !== undefined && !(words(options.whereToPay?.en) && words(options.whereToPay?.ar))) {
    throw optionError('whereToPay', 'an object of en and ar texts, each 1 to 500 characters', options.whereToPay);
  }
  if (options.timers !== undefined && (typeof options.timers?.setTimeout !== 'function' || typeof options.timers?.clearTimeout !== 'function')) {
    throw optionError('timers', 'an object with setTimeout and clearTimeout', options.timers);
  }
  const onCallback = hookOption('onCallback', options.onCallback);
  const callbackUrl = options.callbackUrl === undefined || options.callbackUrl === false ? options.callbackUrl : liveUrlOption('callbackUrl', options.callbackUrl);
  const returnUrlOrigins = originsOption('returnUrlOrigins', options.returnUrlOrigins);
  const publicOrigin = options.publicOrigin === undefined ? undefined : originOption('publicOrigin', options.publicOrigin);
  return Object.freeze({
    service,
    credentials: Object.freeze({ merchantId: service.merchantId, privateKey: service.privateKey }),
    serviceIsLocal: isLoopbackUrl(service.baseUrl),
    basePath: (options.basePath ?? '').replace(/\/+$/, ''),
    orderSource: orderSourceOf(options, service),
    callbackUrl,
    merchantName: options.merchantName,
    whereToPay: options.whereToPay === undefined ? undefined : Object.freeze({ en: options.whereToPay.en, ar: options.whereToPay.ar }),
    authorize: hookOption('authorize', options.authorize),
    authorizeAction: hookOption('authorizeAction', options.authorizeAction),
    onCallback,
    stores: storesOf(options, now),
    limits: resolveLimits(options.limits),
    reconcile: resolveReconcileOptions(options.reconcile, onCallback !== undefined),
    streams: resolveStreamOptions(options.streams),
    timers: options.timers,
    statusSharedMs:
      options.statusSharedMs === false ? false : numberOption('statusSharedMs', options.statusSharedMs, { fallback: STATUS_SHARED_MS, min: 0, unit: 'milliseconds' }),
    clientAddress: hookOption('clientAddress', options.clientAddress),
    ipv6ClientPrefix: numberOption('ipv6ClientPrefix', options.ipv6ClientPrefix, { fallback: DEFAULT_IPV6_CLIENT_PREFIX, min: 1, max: 128, integer: true, unit: 'bits' }),
    returnUrlOrigins,
    // What the shop already configures says where the kit is: its callback address, and its pages' origins.
    publicOrigins: Object.freeze(publicOrigin ? [publicOrigin] : [...new Set([...(typeof callbackUrl === 'string' ? [new URL(callbackUrl).origin] : []), ...returnUrlOrigins])]),
    publicOriginGiven: publicOrigin !== undefined,
    trustProxy: booleanOption('trustProxy', options.trustProxy, false),
    callbackToleranceSeconds: numberOption('callbackToleranceSeconds', options.callbackToleranceSeconds, { fallback: 300, min: 1, unit: 'seconds' }),
    maxBodyBytes: numberOption('maxBodyBytes', options.maxBodyBytes, { fallback: 16 * 1024, min: 1, unit: 'bytes' }),
    logger: redacting(options.logger ?? console, redact),
    redact,
    now,
    elementFiles: folderOption('elementFiles', options.elementFiles),
  });
}
