/**
 * `svc-checkout/checkout`: the payment life without a view. `CheckoutSession` runs one checkout — create,
 * next actions, codes, 3-D Secure, status — against the merchant's endpoint; `<svc-checkout>` is one view of
 * it, and a shop's own UI can be another. No DOM is needed: what the session uses of a page comes through a
 * `CheckoutEnvironment`, found in the page by default.
 */
export { CheckoutSession, type SessionCounts } from './session.js';
export { defaultEnvironment, type CheckoutEnvironment, type KeyValueStorage, type Timers } from './environment.js';
export { CONFIG_SOURCES } from './config-sources.js';
export { ATTRIBUTES, attributeOf, parseMethods, resolveConfig, type AttributeValues, type CheckoutConfig, type CheckoutSettings } from './config.js';
export { firstFrameOf } from './first-frame.js';
export { CODE_FIELDS } from './code-fields.js';
export { METHOD_FIELDS, NOTIFY_LANGUAGE_CHOICES, NOTIFY_METHOD_CHOICES, fieldsOf, formFieldOf, isAsked, type FieldName, type FieldSpec, type HintName } from './fields.js';
export { answerOf, EndpointClient, EndpointError, requestHeaders, unanswered, type EndpointAnswer, type EndpointClientOptions } from './endpoint-client.js';
export { DEFAULT_POLL_INTERVAL_MS, POLL_BACKOFF, StatusPoller, type StatusPollerOptions } from './poller.js';
export { STREAM_RETRY_MS, StatusFollower, type FollowerStreamHandlers, type FollowMode, type StatusFollowerOptions } from './follower.js';
export {
  openStatusStream,
  type StatusStream,
  type StatusStreamFailure,
  type StatusStreamFailureReason,
  type StatusStreamFetch,
  type StatusStreamOptions,
  type StatusStreamState,
  type StatusStreamTimers,
} from './status-stream.js';
export { loadSaved, type SavedCheckout } from './storage.js';
export { isIsolated, type IsolatedCall, type IsolatedFields, type IsolatedLink, type IsolatedProof, type IsolatedReport } from './isolated.js';
export * from './transitions.js';
export {
  orderOf,
  type ActionDetail,
  type ActionType,
  type ActiveOrder,
  type Announcement,
  type ChangeDetail,
  type CheckoutEvent,
  type CheckoutEventDetail,
  type CheckoutState,
  type Creating,
  type ErrorDetail,
  type ExpiredDetail,
  type FieldError,
  type KnownFromCreate,
  type Message,
  type Phase,
  type ReadyDetail,
  type RedirectDetail,
  type ResultOutcome,
  type WaitReason,
} from './state.js';
