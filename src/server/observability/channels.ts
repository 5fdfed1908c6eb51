/**
 * The kit's diagnostics channels (docs/observability.md): what it does, published on `node:diagnostics_channel` for APM
 * tools and the shop's own telemetry to subscribe to, without wrapping the kit.
 *
 * Tracing channels (`tracingChannel(name)`: start, end, asyncStart, asyncEnd and error, each with one context object
 * per unit of work, filled in as it goes):
 *   svc-checkout:service   each try of a call to the service
 *   svc-checkout:request   each call of the element to the kit
 *   svc-checkout:callback  each callback the service sends, and each outcome a reconciliation sweep hands over
 *   svc-checkout:stream    each status stream, from its opening to its close
 *   svc-checkout:sweep     each reconciliation sweep
 * Plain channels, for news:
 *   svc-checkout:redis     the Redis adapter's state: up, down, up again
 *   svc-checkout:timing    a checkout timing a page sent (the element's beacons)
 *
 * Nothing is built while nobody listens: each place that publishes asks `listened` first, so a kit nobody watches runs
 * as it would without channels. A payload carries only what the documentation lists — never a key, a signature, a
 * token, an account number, a code, a phone number or an email address (test/server/diagnostics.test.ts searches every
 * payload of a whole run). Where the runtime has no node:diagnostics_channel, there are no channels.
 */
import type { PayMethod, ServiceOperation, StreamEndReason } from '../../core/index.js';
import type { CheckoutTiming } from '../../core/timings.js';
import type { Answer } from '../http/http.js';
import type { LimitName } from '../limits/table.js';
import type { CallbackRejection } from '../runtime/signature.js';
import { nodeDiagnostics, type NodeChannel, type NodeTracingChannel } from '../runtime/modules.js';

/** Every channel's name. */
export const CHANNELS = {
  service: 'svc-checkout:service',
  request: 'svc-checkout:request',
  callback: 'svc-checkout:callback',
  stream: 'svc-checkout:stream',
  sweep: 'svc-checkout:sweep',
  redis: 'svc-checkout:redis',
  timing: 'svc-checkout:timing',
} as const;

/** What every tracing channel's context may end with: `tracePromise` sets one of the two when the work settles. */
interface Settled {
  /** The work's value: the kit's own work resolves to nothing, so that nothing else reaches a subscriber. */
  result?: undefined;
  /** What the work threw (a `ServiceError` on `svc-checkout:service`); the kit's own errors only. */
  error?: unknown;
}

/** `svc-checkout:service`: one try of a call to the service; a call tried again is traced again (`attempt` 2, 3…). */
export interface ServiceCallTrace extends Settled {
  operation: ServiceOperation;
  /** The service's path (`/api/v1/international/cashier/status`). */
  path: string;
  /** 1 for the first try of a call, then 2, 3… */
  attempt: number;
  /** The order the call is about, as its body names it. */
  reference?: string;
  orderNo?: string;
  /** At the end: the HTTP status of the answer (none when no answer came), */
  status?: number;
  /** the envelope's code (`00000`, `50003`…; none when the answer was no envelope), */
  code?: string;
  /** and the milliseconds the try took. */
  durationMs?: number;
}

/** The element's calls, by route. `events` opens a status stream (which `svc-checkout:stream` then follows). */
export type RequestRoute = 'create' | 'otp' | 'pin' | 'resendOtp' | 'status' | 'ticket' | 'events';

/**
 * What became of a call: `ok` (`00000`), `invalid` (`02001`: a field broke a rule), `refused` (`02000`: no token or a
 * wrong one), `throttled` (`TOO_MANY_REQUESTS`, `limit` says which), `exists` (`ORDER_EXISTS`: the checkout has an
 * order already), `changed` (`CHECKOUT_CHANGED`: the cart was paid at another amount), `exhausted`
 * (`ATTEMPTS_EXHAUSTED`: no attempt of the checkout is left), `unavailable` (`50003`: the service did not answer), `service-error` (any other code of the
 * service's), `bad-request` (HTTP 4xx: not JSON, too large), `failed` (HTTP 500: the kit or a hook of the shop's threw).
 */
export type RequestOutcome =
  | 'ok'
  | 'invalid'
  | 'refused'
  | 'throttled'
  | 'exists'
  | 'changed'
  | 'exhausted'
  | 'unavailable'
  | 'service-error'
  | 'bad-request'
  | 'failed';

/** `svc-checkout:request`: one call of the element to the kit. */
export interface RequestTrace extends Settled {
  route: RequestRoute;
  /** A create's method. */
  method?: PayMethod;
  /** At the end: */
  outcome?: RequestOutcome;
  /** the envelope's code, */
  code?: string;
  /** the HTTP status, */
  status?: number;
  /** the limit that refused it, a name of the kit's table of limits (limits.ts, docs/limits.md), */
  limit?: LimitName;
  /** and the milliseconds the kit took. */
  durationMs?: number;
}

/**
 * `handled` (`onCallback` ran and returned), `duplicate` (handled before), `busy` (being handled elsewhere: answered
 * 503), `failed` (`onCallback` threw: answered 500), `unavailable` (the shared store is away: answered 503), `rejected`
 * (not signed by the service, or too old: 401), `invalid` (signed, but not a callback the specification allows: 400).
 */
export type CallbackOutcome = 'handled' | 'duplicate' | 'busy' | 'failed' | 'unavailable' | 'rejected' | 'invalid';

/** `svc-checkout:callback`: one callback of the service's, or one outcome a reconciliation sweep found and hands over. */
export interface CallbackTrace extends Settled {
  source: 'callback' | 'reconciliation';
  /** A callback's signature checked out (callbacks only). */
  verified?: boolean;
  /** Why it was rejected (`CallbackRejection`: `bad-signature`, `stale-timestamp`, `missing-signature`…). */
  reason?: CallbackRejection;
  notifyId?: string;
  orderNo?: string;
  reference?: string;
  /** The order's status the outcome says. */
  status?: string;
  /** When the service made the callback (its `timestamp`, epoch ms; callbacks only: a status query does not say). */
  eventAt?: number;
  outcome?: CallbackOutcome;
  /** The milliseconds `onCallback` took, when it ran. */
  handlerMs?: number;
  /** Handled this many milliseconds after `eventAt`, on the kit's clock: from the payment to the shop's hook. */
  lagMs?: number;
  durationMs?: number;
}

/**
 * Why a status stream closed: `terminal` (the order settled), `expired` (the order expired), `limit` (a stream whose
 * order's expiry is unknown ran its 30 minutes), `client` (the payer's browser went away), `slow-client` (it stopped
 * reading).
 */
export type StreamCloseReason = StreamEndReason | 'limit' | 'client' | 'slow-client';

/** `svc-checkout:stream`: one status stream, `start` when it opens, `asyncEnd` when it closes. */
export interface StreamTrace extends Settled {
  /** The order it follows, by its number or by its reference. */
  orderNo?: string;
  reference?: string;
  /** At the close: why, and how long it was open. */
  reason?: StreamCloseReason;
  durationMs?: number;
}

/** `svc-checkout:sweep`: one reconciliation sweep, and at the end what it did. */
export interface SweepTrace extends Settled {
  asked?: number;
  handled?: number;
  forgotten?: number;
  durationMs?: number;
}

/** `svc-checkout:redis`: the Redis adapter connected (`up`), lost Redis (`down`), or has it back (`up`). */
export interface RedisStateMessage {
  state: 'up' | 'down';
  /** The merchant whose keys the adapter holds, when it was given. */
  merchantId?: string;
}

/** `svc-checkout:timing`: one of the element's timings (src/core/timings.ts), as a page sent it. */
export type TimingMessage = CheckoutTiming;

const tracing = (name: string): NodeTracingChannel | undefined => nodeDiagnostics?.tracingChannel(name);

export const serviceChannel = tracing(CHANNELS.service);
export const requestChannel = tracing(CHANNELS.request);
export const callbackChannel = tracing(CHANNELS.callback);
export const streamChannel = tracing(CHANNELS.stream);
export const sweepChannel = tracing(CHANNELS.sweep);
export const redisChannel: NodeChannel | undefined = nodeDiagnostics?.channel(CHANNELS.redis);
export const timingChannel: NodeChannel | undefined = nodeDiagnostics?.channel(CHANNELS.timing);

/** Whether anyone listens to a channel now (none: nothing is built for it). */
export function listened(channel: NodeTracingChannel | NodeChannel | undefined): channel is NodeTracingChannel & NodeChannel {
  if (channel === undefined) return false;
  const has = channel.hasSubscribers;
  if (has !== undefined) return has;
  const { start, end, asyncStart, asyncEnd, error } = channel as NodeTracingChannel;
  return start.hasSubscribers || end.hasSubscribers || asyncStart.hasSubscribers || asyncEnd.hasSubscribers || error.hasSubscribers;
}

/** Milliseconds since `started` (a `performance.now()`), to a tenth. */
export function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/**
 * Runs `work` inside a trace of `channel` with `context`, and returns what it resolved to: the trace itself sees only
 * the context (its `result` stays empty), so that an answer, a body or a token never reaches a subscriber.
 */
export async function traced<T>(channel: NodeTracingChannel, context: object, work: () => Promise<T>): Promise<T> {
  let value!: T;
  await channel.tracePromise(async () => {
    value = await work();
  }, context);
  return value;
}

const REQUEST_OUTCOMES: Readonly<Record<string, RequestOutcome>> = {
  '00000': 'ok',
  '02001': 'invalid',
  '02000': 'refused',
  TOO_MANY_REQUESTS: 'throttled',
  ORDER_EXISTS: 'exists',
  CHECKOUT_CHANGED: 'changed',
  ATTEMPTS_EXHAUSTED: 'exhausted',
  '50003': 'unavailable',
};

/** What an answer says of the call, read from its status and its envelope's code (and the limit, when throttled). */
function describe(context: RequestTrace, status: number, body: string | undefined): void {
  context.status = status;
  if (status !== 200 || body === undefined) {
    // A 2xx without an envelope: a stream opened (200), or none needed, its order settled (204).
    context.outcome = status >= 500 ? 'failed' : status < 300 ? 'ok' : 'bad-request';
    return;
  }
  let envelope: { code?: unknown; data?: { limit?: unknown } | null } = {};
  try {
    envelope = JSON.parse(body) as typeof envelope;
  } catch {
    // not an envelope: said by the outcome alone
  }
  const code = typeof envelope.code === 'string' ? envelope.code : undefined;
  if (code === undefined) {
    context.outcome = 'failed';
    return;
  }
  context.code = code;
  context.outcome = REQUEST_OUTCOMES[code] ?? 'service-error';
  const limit = envelope.data?.limit;
  if (context.outcome === 'throttled' && typeof limit === 'string') context.limit = limit as LimitName;
}

/**
 * One call of the element, traced on `svc-checkout:request` (only when someone listens: see `listened`). `call` is
 * given the context to note what it learns on the way (a create's method) and must not reject.
 */
export function traceRequest(route: RequestRoute, call: (context: RequestTrace) => Promise<Answer>): Promise<Answer> {
  const context: RequestTrace = { route };
  const started = performance.now();
  return traced(requestChannel!, context, async () => {
    const answer = await call(context);
    describe(context, answer.status, answer.body);
    context.durationMs = elapsed(started);
    return answer;
  });
}

/** `events`, which answers a Response: a stream opened (200, Server-Sent Events), or a refusal, an envelope. */
export function traceStreamRequest(call: () => Promise<Response>): Promise<Response> {
  const context: RequestTrace = { route: 'events' };
  const started = performance.now();
  return traced(requestChannel!, context, async () => {
    const response = await call();
    const json = /json/i.test(response.headers.get('content-type') ?? '');
    describe(context, response.status, json ? await response.clone().text() : undefined);
    context.durationMs = elapsed(started);
    return response;
  });
}

/** Publishes on a plain channel, when someone listens; `message` is built only then. */
export function publish(channel: NodeChannel | undefined, message: () => object): void {
  if (listened(channel)) channel.publish(message());
}
