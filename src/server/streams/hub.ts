/**
 * The status stream (`GET /payments/events`): each payer's own order's status, pushed as Server-Sent Events
 * (src/core/stream.ts) the moment the kit verifies a callback for it, whichever process of the kit the callback
 * reached (the `StatusBus`). Between callbacks, the kit asks the service itself: one status query per order at
 * a time however many tabs watch it, briskly after the payer's last action and while callbacks cannot be counted on
 * (none seen lately, or the bus is down), once in a long while otherwise (pace.ts).
 *
 * One `OrderWatch` per order holds its connections, the status last known and the one timer of its next check;
 * one heartbeat timer serves every connection. The last connection to close takes its watch's timer and query
 * with it, and the last watch the heartbeat.
 */
import {
  encodeComment,
  encodeEvent,
  EVENT_STREAM_TYPE,
  isPaymentStatus,
  isSuccess,
  isTerminalStatus,
  STREAM_EVENTS,
  type Envelope,
  type StatusRequest,
  type StreamEndReason,
  type StreamSchedule,
  type StreamStatus,
  type Timers,
} from '../../core/index.js';
import { BoundedMap } from '../stores/bounded-map.js';
import { elapsed, listened, streamChannel, type StreamTrace } from '../observability/channels.js';
import { errorMessage, type Logger } from '../http/http.js';
import type { StatusBus, StatusUpdate } from '../stores/status-bus/port.js';
import { StreamConnection } from './connection.js';
import { StreamPace } from './pace.js';
import { deliverStatus, keyOf, OrderWatch, streamStatusOf, type OrderTokenFor, type StreamProof } from './watch.js';

import { STREAM_POLL_BACKOFF, type ResolvedStreamOptions } from '../config/streams.js';

export { streamStatusOf, type StreamProof } from './watch.js';
export type { Timers } from '../../core/index.js';

/** A stream of an order whose expiry the proof does not tell closes after this (the client reconnects). */
const UNKNOWN_EXPIRY_MS = 30 * 60_000;
/** Statuses remembered for a stream that opens later (a reconnect, another tab). */
const RECENT_STATUSES = 10_000;
/** A deadline that moved less than this (the service's clock is read to the second) is not sent again. */
const DEADLINE_DRIFT_MS = 2_000;

export interface StatusHubOptions {
  /**
   * One status query to the service, tried once, counted against the order's status limit; `vouchFor` is what the
   * stream's proof says of the order (its checkout), which reconciliation keeps with it.
   */
  query(query: StatusRequest, signal: AbortSignal, vouchFor: StreamProof['vouchFor']): Promise<Envelope>;
  bus: StatusBus;
  orderTokenFor: OrderTokenFor;
  options: ResolvedStreamOptions;
  timers: Timers;
  now(): number;
  logger: Logger;
}

/** The streams of one kit process. */
export class StatusHub {
  readonly #watches = new Map<string, OrderWatch>();
  readonly #connections = new Set<StreamConnection>();
  readonly #recent = new BoundedMap<string, { status: StreamStatus; at: number }>(RECENT_STATUSES);
  readonly #options: StatusHubOptions;
  readonly #limits: ResolvedStreamOptions;
  readonly #pace: StreamPace;
  #heartbeat: unknown;
  #busLive: boolean;
  #busLiveSince: number;

  constructor(options: StatusHubOptions) {
    this.#options = options;
    this.#limits = options.options;
    this.#busLive = options.bus.live ?? true;
    this.#busLiveSince = options.now();
    this.#pace = new StreamPace(options.options, options.now, this.#busLive);
    options.bus.subscribe({ update: (update) => this.#heard(update), connection: (state) => this.#busState(state) });
  }

  /** Streams open in this process. */
  get openStreams(): number {
    return this.#connections.size;
  }

  /** Orders watched in this process. */
  get watchedOrders(): number {
    return this.#watches.size;
  }

  /** Whether the streams count on callbacks now (and query the service once in a long while). */
  get countingOnCallbacks(): boolean {
    return this.#pace.countingOnCallbacks;
  }

  #now(): number {
    return this.#options.now();
  }

  /**
   * Whether a client comes back to a stream that has nothing more to tell it: the status it last received is
   * final (its `Last-Event-ID`), or it reconnects after the order's deadline. It is answered 204, which a
   * standard EventSource takes as "stop": it would otherwise reconnect every `retry:` for as long as the page is open.
   */
  finished(request: Request, proof: StreamProof): boolean {
    const seen = request.headers.get('last-event-id');
    if (seen === null) return false;
    if (isPaymentStatus(seen) && isTerminalStatus(seen)) return true;
    // Only an order token tells the order's own deadline (a checkout token bounds it from now).
    return proof.deadline !== undefined && this.#now() >= proof.deadline();
  }

  /** Opens a stream for a proven order, admitted by the stream limits: `release` gives its places back when it closes. */
  open(request: Request, proof: StreamProof, release: () => void = () => undefined): Response {
    const key = keyOf(proof.query);
    const existing = this.#watches.get(key);
    const now = this.#now();
    const endsAt = proof.expiresAt ?? now + UNKNOWN_EXPIRY_MS;
    const watch = existing ?? this.#watch(key, proof, endsAt);
    if (existing && endsAt > watch.endsAt) {
      watch.endsAt = endsAt;
      watch.expiryKnown = proof.expiresAt !== undefined;
    }
    watch.deadline ??= proof.deadline;
    // A stream opened (a page loaded, a tab came back, a reconnect) is the payer's: brisk from now.
    this.#acted(watch, now);

    let connection!: StreamConnection;
    const detach = () => connection.close('client');
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        connection = new StreamConnection(controller, (closed) => {
          request.signal.removeEventListener('abort', detach);
          release();
          this.#detach(watch, closed);
        });
      },
      cancel: () => connection.close('client'),
    });
    const seen = request.headers.get('last-event-id');
    if (isPaymentStatus(seen)) connection.seen = seen;
    watch.connections.add(connection);
    this.#connections.add(connection);
    request.signal.addEventListener('abort', detach, { once: true });
    // Bytes at once, so that a client behind a proxy that holds them back knows within seconds.
    connection.write(encodeEvent({ retry: this.#limits.retrySeconds * 1000 }) + this.#scheduleEvent(watch));
    this.#armHeartbeat();
    if (existing) this.#deliverTo(watch, [connection]);
    if (listened(streamChannel)) this.#trace(connection, proof);
    if (request.signal.aborted) connection.close('client');
    return new Response(body, {
      status: 200,
      headers: {
        'Content-Type': `${EVENT_STREAM_TYPE}; charset=utf-8`,
        'Cache-Control': 'no-store, no-transform',
        'X-Accel-Buffering': 'no',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  }

  /** The stream's life on svc-checkout:stream: `start` now, `asyncEnd` when it closes, with why. */
  #trace(connection: StreamConnection, proof: StreamProof): void {
    const trace: StreamTrace = proof.query.orderNo !== undefined ? { orderNo: proof.query.orderNo } : { reference: proof.query.reference };
    const started = performance.now();
    const closed = new Promise<void>((resolve) => {
      connection.onClosed = (reason) => {
        Object.assign(trace, { reason, durationMs: elapsed(started) });
        resolve();
      };
    });
    void streamChannel!.tracePromise(() => closed, trace);
  }

  /**
   * A status the status route saw, asked by the payer's page: news for the streams of that order in this process, and
   * the payer's action (its streams brisk again).
   */
  observe(data: unknown): void {
    const status = streamStatusOf(data);
    if (!status) return;
    const now = this.#now();
    this.#learn(status, now);
    this.#payerActed(status, now);
  }

  /** The payer acted on the order (here, or in another process: the bus): its streams poll briskly again. */
  #payerActed(order: { orderNo: string; reference: string }, at: number): void {
    for (const key of [`o:${order.orderNo}`, `r:${order.reference}`]) {
      const watch = this.#watches.get(key);
      if (watch && !watch.ended) this.#acted(watch, at);
    }
  }

  #acted(watch: OrderWatch, at: number): void {
    const before = this.#pace.dueAt(watch);
    this.#pace.acted(watch, at);
    // Sooner than it was due: the timer moves (a watch without a timer yet is armed when it is made).
    if (watch.timer !== undefined && this.#pace.dueAt(watch) < before) this.#arm(watch);
  }

  #watch(key: string, proof: StreamProof, endsAt: number): OrderWatch {
    const watch = new OrderWatch(key, proof.query, proof.vouchFor, endsAt, proof.expiresAt !== undefined);
    this.#watches.set(key, watch);
    const recent = this.#recent.get(key);
    // What this process heard lately stands for a check, as long as the bus has not missed anything since.
    if (recent && recent.at >= this.#busLiveSince) {
      watch.known = recent.status;
      watch.lastCheckAt = recent.at;
      if (isTerminalStatus(recent.status.status)) {
        queueMicrotask(() => this.#finish(watch, 'terminal'));
        return watch;
      }
      queueMicrotask(() => this.#deliverTo(watch, [...watch.connections]));
    }
    this.#arm(watch);
    return watch;
  }

  #scheduleEvent(watch: OrderWatch): string {
    const schedule: StreamSchedule = {
      delayMs: 0,
      intervalMs: this.#limits.pollIntervalMs,
      backoff: [...STREAM_POLL_BACKOFF],
      durationMs: Math.max(0, watch.endsAt - this.#now()),
      heartbeatMs: this.#limits.heartbeatSeconds * 1000,
      retryMs: this.#limits.retrySeconds * 1000,
    };
    return encodeEvent({ event: STREAM_EVENTS.schedule, data: JSON.stringify(schedule) });
  }

  // ---------------------------------------------------------------------------------------------------------
  // When to ask the service

  #arm(watch: OrderWatch, delay = Math.max(0, this.#pace.dueAt(watch) - this.#now())): void {
    this.#options.timers.clearTimeout(watch.timer);
    watch.timer = undefined;
    if (watch.ended || watch.abort) return; // a check in flight arms the next when it returns
    watch.timer = this.#options.timers.setTimeout(() => {
      watch.timer = undefined;
      void this.#check(watch);
    }, delay);
  }

  async #check(watch: OrderWatch): Promise<void> {
    if (watch.ended || watch.abort) return;
    const last = this.#now() >= watch.endsAt;
    const abort = new AbortController();
    watch.abort = abort;
    let answer: Envelope | undefined;
    try {
      answer = await this.#options.query(watch.query, abort.signal, watch.vouchFor);
    } catch (error) {
      if (!abort.signal.aborted) this.#options.logger.warn(`svc-checkout: a status stream's query failed: ${errorMessage(error)}`);
    }
    watch.abort = undefined;
    if (watch.ended) return;
    const now = this.#now();
    watch.lastCheckAt = now;
    watch.step += 1;
    const status = answer && isSuccess(answer) ? streamStatusOf(answer.data) : undefined;
    if (status) {
      const news = watch.known?.status !== status.status;
      this.#learn(status, now);
      // A change a query found (its callback late or lost) is news for the other processes too.
      if (news && isTerminalStatus(status.status)) void this.#publish({ ...status, source: 'query', at: now });
    }
    if (watch.ended) return;
    this.#resync(watch);
    if (last || now >= watch.endsAt) this.#finish(watch, watch.expiryKnown ? 'expired' : undefined);
    else this.#arm(watch);
  }

  /** After a query: the order's deadline as the service's clock now says, sent again when it moved. */
  #resync(watch: OrderWatch): void {
    if (!watch.deadline || !watch.expiryKnown) return;
    const deadline = watch.deadline();
    if (Math.abs(deadline - watch.endsAt) <= DEADLINE_DRIFT_MS) return;
    watch.endsAt = deadline;
    const event = this.#scheduleEvent(watch);
    for (const connection of watch.connections) connection.write(event);
  }

  // ---------------------------------------------------------------------------------------------------------
  // What the kit learns

  #heard(update: StatusUpdate): void {
    const { source, at: _at, ...status } = update;
    const now = this.#now();
    // The payer acted on the order in some process: no news of its status, only of when to ask.
    if (source === 'payer') return this.#payerActed(status, now);
    if (source === 'callback' && this.#pace.callbackHeard()) for (const watch of this.#watches.values()) this.#arm(watch);
    this.#learn(status, now);
  }

  #learn(status: StreamStatus, at: number): void {
    for (const key of [`o:${status.orderNo}`, `r:${status.reference}`]) {
      this.#remember(key, status, at);
      const watch = this.#watches.get(key);
      if (!watch || watch.ended || watch.known?.status === status.status) continue;
      watch.known = status;
      if (isTerminalStatus(status.status)) this.#finish(watch, 'terminal');
      else this.#deliverTo(watch, [...watch.connections]);
    }
  }

  #remember(key: string, status: StreamStatus, at: number): void {
    const previous = this.#recent.get(key);
    // A terminal status is final: an older query's answer arriving late does not undo it.
    if (previous && isTerminalStatus(previous.status.status) && !isTerminalStatus(status.status)) return;
    this.#recent.set(key, { status, at });
  }

  async #publish(update: StatusUpdate): Promise<void> {
    try {
      await this.#options.bus.publish(update);
    } catch (error) {
      this.#options.logger.warn(`svc-checkout: the status bus refused an update: ${errorMessage(error)}`);
    }
  }

  #busState(state: 'up' | 'down'): void {
    const live = state === 'up';
    if (live === this.#busLive) return;
    this.#busLive = live;
    this.#pace.busLive = live;
    if (live) {
      // Updates published while it was down never came: check every order once, spread over one interval.
      this.#busLiveSince = this.#now();
      for (const watch of this.#watches.values()) this.#arm(watch, Math.floor(Math.random() * this.#limits.pollIntervalMs));
    } else {
      for (const watch of this.#watches.values()) {
        watch.step = 0;
        this.#arm(watch);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Writing to the streams

  /** Sends the status known to the given connections that do not have it yet (after the order token, by reference). */
  #deliverTo(watch: OrderWatch, connections: StreamConnection[]): Promise<void> {
    return deliverStatus(watch, connections, this.#options.orderTokenFor, this.#options.logger);
  }

  /** The order is settled (or past its expiry): the last status, `end`, and every stream of it closes. */
  #finish(watch: OrderWatch, reason: StreamEndReason | undefined): void {
    if (watch.ended) return;
    void this.#deliverTo(watch, [...watch.connections]).then(() => {
      this.#drop(watch);
      const end = reason ? encodeEvent({ event: STREAM_EVENTS.end, data: JSON.stringify({ reason }) }) : '';
      for (const connection of [...watch.connections]) {
        if (end) connection.write(end);
        connection.close(reason ?? 'limit');
      }
    });
  }

  /** Forgets the watch: its timer, its query in flight. */
  #drop(watch: OrderWatch): void {
    watch.ended = true;
    this.#options.timers.clearTimeout(watch.timer);
    watch.timer = undefined;
    watch.abort?.abort();
    watch.abort = undefined;
    if (this.#watches.get(watch.key) === watch) this.#watches.delete(watch.key);
  }

  #detach(watch: OrderWatch, connection: StreamConnection): void {
    watch.connections.delete(connection);
    this.#connections.delete(connection);
    if (watch.connections.size === 0) this.#drop(watch);
    if (this.#connections.size === 0) {
      this.#options.timers.clearTimeout(this.#heartbeat);
      this.#heartbeat = undefined;
    }
  }

  #armHeartbeat(): void {
    if (this.#heartbeat !== undefined) return;
    this.#heartbeat = this.#options.timers.setTimeout(() => {
      this.#heartbeat = undefined;
      const beat = encodeComment();
      for (const connection of [...this.#connections]) connection.write(beat);
      if (this.#connections.size > 0) this.#armHeartbeat();
    }, this.#limits.heartbeatSeconds * 1000);
  }
}

