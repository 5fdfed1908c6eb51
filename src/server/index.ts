/**
 * `svc-checkout/server`: the merchant kit. Signs requests and verifies callbacks (HMAC-SHA512 over WebCrypto),
 * calls the service with a typed client, and serves the element's calls with one Web-standard handler.
 */
export { signRequest, signCallback, verifyCallback, verifyRequest, hmacSha512Hex, readHeader } from './signature.js';
export type { VerifyCallbackOptions, VerifyRequestOptions, CallbackVerification, CallbackRejection, HeaderSource } from './signature.js';
export { ServiceClient, ServiceError, ServiceConfigError, resolveBaseUrl } from './service-client.js';
export type { ServiceClientOptions, Environment, CallOptions, ServiceErrorKind } from './service-client.js';
export { createMerchantHandler, OrderRejection } from './handler.js';
export type { CheckoutOf, CheckoutProgress, CheckoutStanding } from './checkouts.js';
export type {
  MerchantHandlerOptions,
  MerchantHandler,
  OpenedCheckout,
  OpenCheckoutOptions,
  AuthorizeHook,
  AuthorizeActionHook,
  ActionOperation,
  OrderSource,
  CallbackEvent,
} from './handler.js';
export { ORDER_TOKEN_GRACE_SECONDS, issueCheckoutToken, issueOrderToken, verifyCheckoutToken, verifyOrderToken, CheckoutTokenError } from './tokens.js';
export type { CheckoutOrder, TokenCredentials, IssueCheckoutTokenOptions, TokenCheck } from './tokens.js';
export { DEFAULT_LIMITS, LIMIT_TABLE } from './limits.js';
export type { Limit, LimitKey, LimitName, OpenLimit, OpenLimitName, RateLimitName, ThrottleLimits } from './limits.js';
export { MemoryThrottleStore } from './throttle.js';
export type { Holding, MemoryThrottleStoreOptions, Place, ThrottleResult, ThrottleStore } from './throttle.js';
export { clientKeyOf } from './client-address.js';
export { STATUS_SHARED_MS } from './status-queries.js';
export { isLoopbackHost, isLoopbackUrl, isLiveAddressAllowed } from '../core/addresses.js';
export { MemoryCallbackStore, StoreUnavailableError } from './callback-store.js';
export { CHECKOUT_RECORD_TTL_MS, MemoryCheckoutStore } from './checkout-store.js';
export type { CheckoutRecord, CheckoutStore, MemoryCheckoutStoreOptions } from './checkout-store.js';
export type { CallbackClaim, CallbackStore, MemoryCallbackStoreOptions } from './callback-store.js';
export { MemoryReconciliationStore } from './reconciliation.js';
export type { ReconciliationStore, ReconcileOptions, TrackedOrder, SweepReport, MemoryReconciliationStoreOptions } from './reconciliation.js';
export { outcomeKey } from './callbacks.js';
export type { HandOverResult } from './callbacks.js';
export { MemoryStatusBus, statusUpdateOf } from './status-bus.js';
export type { StatusBus, StatusBusListener, StatusUpdate } from './status-bus.js';
export { DEFAULT_STREAM_OPTIONS, STREAM_POLL_BACKOFF } from './streams.js';
export type { StreamOptions, Timers } from './streams.js';
export { CHANNELS } from './diagnostics.js';
export type {
  ServiceCallTrace,
  RequestTrace,
  RequestRoute,
  RequestOutcome,
  CallbackTrace,
  CallbackOutcome,
  StreamTrace,
  StreamCloseReason,
  SweepTrace,
  RedisStateMessage,
  TimingMessage,
} from './diagnostics.js';
export { toNodeListener } from './node.js';
export type { NodeListener, NodeListenerOptions, NodeRequest, NodeResponse } from './node.js';
export * from '../core/index.js';
