/**
 * `svc-checkout/server`: the merchant kit. Signs requests and verifies callbacks (HMAC-SHA512 over WebCrypto),
 * calls the service with a typed client, and serves the element's calls with one Web-standard handler.
 */
export { signRequest, signCallback, verifyCallback, verifyRequest, hmacSha512Hex, readHeader } from './runtime/signature.js';
export type { VerifyCallbackOptions, VerifyRequestOptions, CallbackVerification, CallbackRejection, HeaderSource } from './runtime/signature.js';
export { ServiceClient, ServiceError } from './service/client.js';
export type { CallOptions, ServiceErrorKind } from './service/client.js';
export { ServiceConfigError } from './config/errors.js';
export { resolveBaseUrl } from './config/service.js';
export type { ServiceClientOptions, Environment } from './config/service.js';
export { createMerchantHandler, OrderRejection } from './handler.js';
export type { CheckoutOf, CheckoutProgress, CheckoutStanding } from './checkouts/walk.js';
export type { MerchantHandlerOptions, MerchantHandler, OpenedCheckout, OpenCheckoutOptions, AuthorizeHook, AuthorizeActionHook, ActionOperation, OrderSource } from './handler.js';
export type { CallbackEvent } from './callbacks/hand-over.js';
export { ORDER_TOKEN_GRACE_SECONDS, issueCheckoutToken, issueOrderToken, verifyCheckoutToken, verifyOrderToken, CheckoutTokenError } from './tokens/tokens.js';
export type { CheckoutOrder, TokenCredentials, IssueCheckoutTokenOptions, TokenCheck } from './tokens/tokens.js';
export { createPaymentLink, readPaymentLink, PaymentLinkError, DEFAULT_LINK_SECONDS, MAX_LINK_SECONDS } from './links/link.js';
export type { PaymentLink, PaymentLinkOptions, PaymentLinkOrder, PaymentLinkPayer, PaymentLinkClaims, PaymentLinkCheck, PaymentLinkRefusal } from './links/link.js';
export type { HandlerPaymentLinkOptions } from './handler.js';
export { DEFAULT_LIMITS, LIMIT_TABLE } from './limits/table.js';
export type { Limit, LimitKey, LimitName, OpenLimit, OpenLimitName, RateLimitName, ThrottleLimits } from './limits/table.js';
export { MemoryThrottleStore } from './stores/throttle/memory.js';
export type { MemoryThrottleStoreOptions } from './stores/throttle/memory.js';
export type { Holding, Place, ThrottleResult, ThrottleStore } from './stores/throttle/port.js';
export { clientKeyOf } from './runtime/client-address.js';
export { STATUS_SHARED_MS } from './config/handler.js';
export { isLoopbackHost, isLoopbackUrl, isLiveAddressAllowed } from '../core/addresses.js';
export { MemoryCallbackStore } from './stores/callbacks/memory.js';
export { StoreUnavailableError } from './stores/shared.js';
export { MemoryCheckoutStore } from './stores/checkouts/memory.js';
export { CHECKOUT_RECORD_TTL_MS } from './stores/checkouts/port.js';
export type { MemoryCheckoutStoreOptions } from './stores/checkouts/memory.js';
export type { CheckoutRecord, CheckoutStore } from './stores/checkouts/port.js';
export type { MemoryCallbackStoreOptions } from './stores/callbacks/memory.js';
export type { CallbackClaim, CallbackStore } from './stores/callbacks/port.js';
export { MemoryTicketStore } from './stores/tickets/memory.js';
export type { MemoryTicketStoreOptions } from './stores/tickets/memory.js';
export type { TicketStore } from './stores/tickets/port.js';
export { MemoryReconciliationStore } from './stores/reconciliation/memory.js';
export type { SweepReport } from './reconciliation/reconciler.js';
export type { ReconcileOptions } from './config/reconcile.js';
export type { ReconciliationStore, TrackedOrder } from './stores/reconciliation/port.js';
export type { MemoryReconciliationStoreOptions } from './stores/reconciliation/memory.js';
export { outcomeKey } from './callbacks/hand-over.js';
export type { HandOverResult } from './callbacks/hand-over.js';
export { MemoryStatusBus } from './stores/status-bus/memory.js';
export { statusUpdateOf } from './stores/status-bus/port.js';
export type { StatusBus, StatusBusListener, StatusUpdate } from './stores/status-bus/port.js';
export { DEFAULT_STREAM_OPTIONS, STREAM_POLL_BACKOFF } from './config/streams.js';
export type { StreamOptions } from './config/streams.js';
export type { Timers } from './streams/hub.js';
export { CHANNELS } from './observability/channels.js';
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
} from './observability/channels.js';
export { toNodeListener } from './runtime/node.js';
export type { NodeListener, NodeListenerOptions, NodeRequest, NodeResponse } from './runtime/node.js';
export * from '../core/index.js';
