/**
 * The payer's side of the kit's status stream (`GET /payments/events`, src/core/stream.ts): DOM-free, with
 * `fetch` and timers injected, so that it runs and is tested anywhere. It reads `text/event-stream` itself
 * (no EventSource), so that the order token goes in a header, never in a URL.
 *
 * It reconnects after a dropped stream with `Last-Event-ID`, after the pause the kit asked for (`retry:`), and
 * says `failed` — so that the caller polls `/payments/status` with the schedule the kit sent — when no byte
 * arrives within 5 s of connecting (a proxy that holds the stream back), when the connection fails (a CSP
 * `connect-src`, a host that cannot stream, a kit without the route), or when reconnecting does not work.
 */
import {
  CHECKOUT_TOKEN_HEADER,
  EVENT_STREAM_TYPE,
  EventStreamReader,
  isPlainObject,
  LAST_EVENT_ID_HEADER,
  MERCHANT_PATHS,
  ORDER_TOKEN_HEADER,
  parseStreamEnd,
  parseStreamSchedule,
  parseStreamStatus,
  STREAM_EVENTS,
  STREAM_QUERY,
  type Envelope,
  type ReceivedEvent,
  type StreamEndReason,
  type StreamSchedule,
  type StreamStatus,
} from '../core/index.js';
import { RESULT_ROLES } from '../core/result-roles.js';

/** The parts of a `fetch` Response the stream reads. `fetch` itself fits. */
export interface StatusStreamResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): StatusStreamReader } | null;
  json(): Promise<unknown>;
}

export interface StatusStreamReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

export interface StatusStreamRequest {
  method: 'GET';
  headers: Record<string, string>;
  signal: AbortSignal;
  credentials: 'include' | 'omit' | 'same-origin';
  cache: 'no-store';
}

export type StatusStreamFetch = (url: string, init: StatusStreamRequest) => Promise<StatusStreamResponse>;

import type { Timers as StatusStreamTimers } from '../core/schedule.js';

export type { StatusStreamTimers };

export type StatusStreamFailureReason =
  /** Connected, but not a byte within `firstByteTimeoutMs`: a buffering proxy, a host that cannot stream. */
  | 'no-bytes'
  /** The request failed: offline, refused by a CSP `connect-src`, a proxy that cut it. */
  | 'network'
  /** An HTTP status other than 200 (404: a kit without the route, or streams turned off). */
  | 'http'
  /** A 200 that is not `text/event-stream`, nor an envelope the kit answers with. */
  | 'not-a-stream'
  /** The kit refused the proof (`02000`): polling is refused the same way. */
  | 'refused'
  /** The kit has too many streams open (`TOO_MANY_REQUESTS`): poll instead. */
  | 'limit'
  /** The stream went silent for longer than its heartbeat allows, and reconnecting did not help. */
  | 'stalled';

export interface StatusStreamFailure {
  state: 'failed';
  reason: StatusStreamFailureReason;
  message: string;
  /** The schedule to poll with: the kit's last, else none (use your own). */
  schedule: StreamSchedule | undefined;
  /** The HTTP status, when there was an answer. */
  httpStatus?: number;
  /** The kit's envelope, for `refused` and `limit`. */
  envelope?: Envelope;
}

export interface StatusStreamOptions {
  /** The kit's endpoint prefix, as the element's `endpoint` (`/checkout`): the stream is `${endpoint}/payments/events`. */
  endpoint: string;
  /** The order's token (`Svc-Order-Token`)… */
  orderToken?: string;
  /** …or the checkout token and the reference it covers (an order whose create answer was lost). */
  checkoutToken?: string;
  reference?: string;
  fetch: StatusStreamFetch;
  timers: StatusStreamTimers;
  /** As the element's endpoint calls. Default `same-origin`. */
  credentials?: 'include' | 'omit' | 'same-origin';
  /** No byte within this long after connecting is a failure. Default 5 000 ms. */
  firstByteTimeoutMs?: number;
  /** Reconnects tried after a stream that worked dropped, before `failed`. Default 2. */
  reconnects?: number;
  /** Every status the kit sends (after a reconnect, only a change). */
  onStatus(status: StreamStatus): void;
  /** The kit's poll schedule, sent first on every connection. */
  onSchedule?(schedule: StreamSchedule): void;
  /** The stream failed for good: poll from now on. Called once; nothing is called after it. */
  onError?(failure: StatusStreamFailure): void;
  /** The stream is over (`terminal`: the last status came; `expired`: the order's expiry passed). */
  onEnd?(reason: StreamEndReason): void;
  /** The stream delivers (`open`: its first bytes came) or lost its connection and tries again (`reconnecting`). */
  onState?(state: 'open' | 'reconnecting'): void;
}

export type StatusStreamState = 'connecting' | 'open' | 'reconnecting' | 'failed' | 'ended' | 'closed';

export interface StatusStream {
  readonly state: StatusStreamState;
  /** The id of the last event seen: the status the client has. */
  readonly lastEventId: string;
  /** The kit's last poll schedule. */
  readonly schedule: StreamSchedule | undefined;
  /** Stops: no request, timer or callback after it. */
  close(): void;
}

const DEFAULT_RETRY_MS = 3_000;
const DEFAULT_HEARTBEAT_MS = 15_000;

/** A decoder of UTF-8 cut anywhere, described here so that this folder needs no DOM types. */
interface StreamingDecoder {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

class Failure extends Error {
  constructor(
    readonly reason: StatusStreamFailureReason,
    message: string,
    readonly extra: { httpStatus?: number; envelope?: Envelope } = {},
  ) {
    super(message);
  }
}

export function openStatusStream(options: StatusStreamOptions): StatusStream {
  if (!options.orderToken && !(options.checkoutToken && options.reference)) {
    throw new TypeError('openStatusStream needs an orderToken, or a checkoutToken and the reference it covers');
  }
  const { timers } = options;
  const firstByteTimeoutMs = options.firstByteTimeoutMs ?? 5_000;
  const reconnects = options.reconnects ?? 2;
  const base = options.endpoint.replace(/\/+$/, '');
  const url = options.orderToken
    ? `${base}${MERCHANT_PATHS.events}`
    : `${base}${MERCHANT_PATHS.events}?${STREAM_QUERY.reference}=${encodeURIComponent(options.reference!)}`;

  let state: StatusStreamState = 'connecting';
  let lastEventId = '';
  let schedule: StreamSchedule | undefined;
  let retryMs = DEFAULT_RETRY_MS;
  /** Connection attempts in a row that never got a byte. */
  let failedAttempts = 0;
  let abort: AbortController | undefined;
  let timer: unknown;

  const finished = () => state === 'failed' || state === 'ended' || state === 'closed';

  function arm(milliseconds: number, then: () => void): void {
    timers.clearTimeout(timer);
    timer = timers.setTimeout(() => {
      timer = undefined;
      then();
    }, milliseconds);
  }

  function stop(next: 'failed' | 'ended' | 'closed'): void {
    state = next;
    timers.clearTimeout(timer);
    timer = undefined;
    abort?.abort();
    abort = undefined;
  }

  function fail(failure: Failure): void {
    if (finished()) return;
    stop('failed');
    options.onError?.({ state: 'failed', reason: failure.reason, message: failure.message, schedule, ...failure.extra });
  }

  /** One connection, until it ends; resolves whether it got any byte. */
  async function connect(): Promise<boolean> {
    const controller = new AbortController();
    abort = controller;
    let gotBytes = false;
    let silence: Failure = new Failure('no-bytes', `no byte of the status stream within ${firstByteTimeoutMs} ms`);
    arm(firstByteTimeoutMs, () => controller.abort());
    const headers: Record<string, string> = { Accept: EVENT_STREAM_TYPE };
    if (options.orderToken) headers[ORDER_TOKEN_HEADER] = options.orderToken;
    else headers[CHECKOUT_TOKEN_HEADER] = options.checkoutToken!;
    if (lastEventId) headers[LAST_EVENT_ID_HEADER] = lastEventId;
    let response: StatusStreamResponse;
    try {
      response = await options.fetch(url, {
        method: 'GET',
        headers,
        signal: controller.signal,
        credentials: options.credentials ?? 'same-origin',
        cache: 'no-store',
      });
    } catch (error) {
      if (controller.signal.aborted && !finished()) throw silence;
      throw new Failure('network', `the status stream could not connect: ${describe(error)}`);
    }
    await refusal(response);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder() as unknown as StreamingDecoder;
    const parser = new EventStreamReader(lastEventId);
    const heartbeatMs = () => schedule?.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (finished() || abort !== controller) return gotBytes;
        if (done) return gotBytes;
        if (!value || value.byteLength === 0) continue;
        if (!gotBytes) {
          gotBytes = true;
          state = 'open';
          failedAttempts = 0;
          silence = new Failure('stalled', 'the status stream went silent');
          options.onState?.('open');
        }
        // A heartbeat comes at least every heartbeatMs: that and the first-byte allowance without a byte is a stuck
        // stream, so that the caller polls within that allowance of the heartbeat that did not come.
        arm(heartbeatMs() + firstByteTimeoutMs, () => controller.abort());
        for (const event of parser.push(decoder.decode(value, { stream: true }))) {
          dispatch(event);
          if (finished()) return gotBytes;
        }
        if (parser.retry !== undefined) retryMs = parser.retry;
      }
    } catch (error) {
      if (finished()) return gotBytes;
      if (!gotBytes) throw controller.signal.aborted ? silence : new Failure('network', `the status stream broke: ${describe(error)}`);
      return gotBytes;
    } finally {
      void reader.cancel().catch(() => undefined);
    }
  }

  /** A 200 event stream goes on; anything else is a failure saying why. */
  async function refusal(response: StatusStreamResponse): Promise<void> {
    const type = response.headers.get('content-type') ?? '';
    if (response.status !== 200) throw new Failure('http', `the status stream answered HTTP ${response.status}`, { httpStatus: response.status });
    if (type.toLowerCase().startsWith(EVENT_STREAM_TYPE) && response.body) return;
    const answer = await response.json().catch(() => undefined);
    if (isPlainObject(answer) && typeof answer['code'] === 'string') {
      const envelope = answer as unknown as Envelope;
      const reason = envelope.code === RESULT_ROLES.refused ? 'refused' : envelope.code === 'TOO_MANY_REQUESTS' ? 'limit' : 'not-a-stream';
      throw new Failure(reason, envelope.message, { httpStatus: 200, envelope });
    }
    throw new Failure('not-a-stream', `the status stream answered ${type || 'no content type'}`, { httpStatus: 200 });
  }

  function dispatch(event: ReceivedEvent): void {
    if (event.type === STREAM_EVENTS.status) {
      const status = parseStreamStatus(event.data);
      lastEventId = event.lastEventId;
      if (status) options.onStatus(status);
    } else if (event.type === STREAM_EVENTS.schedule) {
      const sent = parseStreamSchedule(event.data);
      if (sent) {
        schedule = sent;
        retryMs = sent.retryMs;
        options.onSchedule?.(sent);
      }
    } else if (event.type === STREAM_EVENTS.end) {
      const end = parseStreamEnd(event.data);
      if (end) {
        stop('ended');
        options.onEnd?.(end.reason);
      }
    }
  }

  async function run(): Promise<void> {
    let everOpen = false;
    while (!finished()) {
      let failure: Failure | undefined;
      try {
        if (await connect()) everOpen = true;
        else failure = new Failure('no-bytes', 'the status stream closed without a byte');
      } catch (error) {
        failure = error instanceof Failure ? error : new Failure('network', describe(error));
      }
      if (finished()) return;
      if (failure) {
        failedAttempts += 1;
        // The first connection decides at once (the caller polls meanwhile); a stream that worked gets retries,
        // unless the kit said no.
        const final = failure.reason === 'refused' || failure.reason === 'limit' || failure.reason === 'http';
        if (!everOpen || final || failedAttempts > reconnects) {
          fail(failure);
          return;
        }
      }
      state = 'reconnecting';
      options.onState?.('reconnecting');
      await new Promise<void>((resolve) => arm(retryMs, resolve));
    }
  }

  void run();

  return {
    get state() {
      return state;
    },
    get lastEventId() {
      return lastEventId;
    },
    get schedule() {
      return schedule;
    },
    close() {
      if (!finished()) stop('closed');
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
