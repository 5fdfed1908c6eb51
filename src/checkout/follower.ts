/**
 * Follows an order's status through the kit's status stream when it can, and by polling when it cannot —
 * never both at once. The stream is tried first; the poller is held while the stream delivers and released
 * the moment it does not: no byte within 5 s of connecting (a buffering proxy, a host that cannot stream), a
 * connection refused (a CSP `connect-src`, offline), a kit without the route (404), or a stream that dropped
 * (closed, cut, or silent past its heartbeat and 5 s) and is reconnecting. After a failure the stream is tried
 * again on a back-off, and again when the browser is back online or the page shows again; while such a probe
 * connects, polling waits (at most the stream's 5 s first-byte limit). A hidden page follows nothing, as
 * polling always paused there: the stream closes, and opens again when the page shows (its first event is the
 * order's status, so nothing is missed).
 */
import { isTerminalStatus, type StreamEndReason, type StreamStatus } from '../core/index.js';
import type { CheckoutEnvironment } from './environment.js';
import type { StatusPoller } from './poller.js';
import type { StatusStream, StatusStreamFailure } from './status-stream.js';

/** Waits before trying the stream again after it failed, ms; the last repeats. */
export const STREAM_RETRY_MS: readonly number[] = [30_000, 60_000, 120_000, 300_000];

/** What the follower hands the stream it opens; `openStream` passes them to `openStatusStream`. */
export interface FollowerStreamHandlers {
  onStatus(status: StreamStatus): void;
  onError(failure: StatusStreamFailure): void;
  onEnd(reason: StreamEndReason): void;
  onState(state: 'open' | 'reconnecting'): void;
}

export interface StatusFollowerOptions {
  poller: StatusPoller;
  /** Opens the followed order's status stream; undefined when it cannot have one (turned off, no proof). */
  openStream(handlers: FollowerStreamHandlers): StatusStream | undefined;
  /** A status the stream sent. */
  onStatus(status: StreamStatus): void;
  /** The order's expiry passed and the last check still saw it pending. */
  onExpired(): void;
  environment: Pick<CheckoutEnvironment, 'timers' | 'online' | 'visibility'>;
}

/** How the order is followed now: `stream` (connecting or delivering), `poll`, or not at all. */
export type FollowMode = 'stream' | 'poll' | 'off';

export class StatusFollower {
  readonly #options: StatusFollowerOptions;
  #mode: FollowMode = 'off';
  #running = false;
  #connected = false;
  #stream: StatusStream | undefined;
  #retryTimer: unknown;
  #retries = 0;
  /** The stream cannot work for this order (refused, a kit without the route): no more tries. */
  #gaveUp = false;
  #unsubscribeOnline: (() => void) | undefined;
  #unsubscribeVisibility: (() => void) | undefined;
  /** Counts streams: handlers of a stream closed since do nothing. */
  #generation = 0;
  /** Whether polling, when it is the way, looks at once (a resumed order, a page come back) or waits a step. */
  #checkFirst = false;

  constructor(options: StatusFollowerOptions) {
    this.#options = options;
  }

  get mode(): FollowMode {
    return this.#mode;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Follows an order from now: `checkFirst` looks at once (a resumed order); the stream's first event does. */
  start(options: { expiresAt?: number | undefined; checkFirst?: boolean } = {}): void {
    this.stop();
    this.#running = true;
    this.#gaveUp = false;
    this.#retries = 0;
    this.#checkFirst = options.checkFirst ?? false;
    const { poller } = this.#options;
    poller.hold();
    poller.start(options);
    if (this.#connected) {
      this.#watchVisibility();
      this.#follow();
    }
  }

  stop(): void {
    this.#running = false;
    this.#pause();
    this.#unwatchVisibility();
    this.#options.poller.stop();
    this.#options.poller.release({ checkAtOnce: false });
    this.#mode = 'off';
  }

  /** The order's expiry moved (the kit said so): polling's last check follows it. */
  retime(expiresAt: number): void {
    this.#options.poller.retime(expiresAt);
  }

  /** A status request now, whichever way the order is followed (the payer asked, or came back from the bank). */
  checkNow(): ReturnType<StatusPoller['checkNow']> {
    return this.#options.poller.checkNow();
  }

  /** The host is in the page: following resumes (the stream's first event, or a poll, looks at once). */
  connect(): void {
    if (this.#connected) return;
    this.#connected = true;
    this.#checkFirst = true;
    // The stream is tried first: the poller waits for its verdict rather than checking at once beside it.
    if (this.#running) this.#options.poller.hold();
    this.#options.poller.connect();
    if (!this.#running) return;
    this.#watchVisibility();
    this.#follow();
  }

  /** The host left the page: the stream closes and polling stops until `connect()`. */
  disconnect(): void {
    this.#connected = false;
    this.#pause();
    this.#unwatchVisibility();
    this.#options.poller.disconnect();
    // Nothing follows the order now; `connect()` decides again how to.
    this.#mode = 'off';
  }

  #pause(): void {
    this.#generation += 1;
    this.#stream?.close();
    this.#stream = undefined;
    this.#clearRetry();
    this.#unsubscribeOnline?.();
    this.#unsubscribeOnline = undefined;
  }

  #clearRetry(): void {
    if (this.#retryTimer !== undefined) this.#options.environment.timers.clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }

  #hidden(): boolean {
    return this.#options.environment.visibility.hidden();
  }

  #watchVisibility(): void {
    this.#unsubscribeVisibility ??= this.#options.environment.visibility.subscribe(() => this.#visibilityChanged());
  }

  #unwatchVisibility(): void {
    this.#unsubscribeVisibility?.();
    this.#unsubscribeVisibility = undefined;
  }

  /**
   * Hidden: the stream closes (the poller pauses by itself), and no try waits. Shown again: the stream opens again,
   * or is tried again after a failure that may pass (polling waits for the try, as after the back-off); after a
   * failure that cannot pass, the poller checks at once by itself.
   */
  #visibilityChanged(): void {
    if (!this.#running || !this.#connected) return;
    if (this.#hidden()) {
      const streaming = this.#mode === 'stream';
      this.#pause();
      // Back in view, the stream is opened again: it was the way, and nothing polled beside it.
      if (streaming) this.#mode = 'off';
      return;
    }
    if (this.#mode === 'off') {
      this.#checkFirst = true;
      this.#follow();
    } else if (this.#mode === 'poll' && !this.#gaveUp) this.#follow();
  }

  /** Tries the stream (unless it cannot work for this order), else polls. */
  #follow(): void {
    if (this.#hidden()) {
      // Nothing is followed in a hidden page (the poller is held here): showing it again starts here.
      this.#mode = 'off';
      return;
    }
    if (this.#gaveUp) {
      this.#poll(this.#checkFirst);
      return;
    }
    const generation = ++this.#generation;
    const current = () => generation === this.#generation && this.#running && this.#connected;
    const { poller } = this.#options;
    poller.hold();
    this.#mode = 'stream';
    const stream = this.#options.openStream({
      onStatus: (status) => {
        if (current()) this.#options.onStatus(status);
      },
      onState: (state) => {
        if (!current()) return;
        if (state === 'open') {
          this.#retries = 0;
          this.#mode = 'stream';
          poller.hold();
        } else {
          // Dropped: poll while it reconnects, so that nothing waits on it.
          this.#mode = 'poll';
          poller.release({ checkAtOnce: true });
        }
      },
      onError: (failure) => {
        if (!current()) return;
        this.#stream = undefined;
        const never = failure.reason === 'refused' || (failure.reason === 'http' && (failure.httpStatus === 404 || failure.httpStatus === 405));
        if (never) this.#gaveUp = true;
        this.#poll(true);
        if (!never) this.#retryLater();
      },
      onEnd: (reason) => {
        if (!current()) return;
        this.#stream = undefined;
        void this.#ended(reason);
      },
    });
    if (!stream) {
      this.#gaveUp = true;
      this.#poll(this.#checkFirst);
      return;
    }
    if (generation === this.#generation) this.#stream = stream;
  }

  #poll(checkAtOnce: boolean): void {
    this.#mode = 'poll';
    this.#options.poller.release({ checkAtOnce });
  }

  /** After a failure: the stream again later (on a back-off), or at once when the browser is back online. */
  #retryLater(): void {
    this.#clearRetry();
    const delays = STREAM_RETRY_MS;
    const delay = delays[Math.min(this.#retries, delays.length - 1)] as number;
    this.#retries += 1;
    const retry = () => {
      this.#clearRetry();
      this.#unsubscribeOnline?.();
      this.#unsubscribeOnline = undefined;
      if (this.#running && this.#connected && this.#mode === 'poll' && !this.#hidden()) this.#follow();
    };
    this.#retryTimer = this.#options.environment.timers.setTimeout(retry, delay);
    this.#unsubscribeOnline ??= this.#options.environment.online.subscribe(retry);
  }

  /** The kit ended the stream: at a terminal status (already applied), or at the order's expiry. */
  async #ended(reason: StreamEndReason): Promise<void> {
    if (reason === 'terminal') {
      // The terminal status came just before; should it not have been applied, polling finds it.
      this.#poll(true);
      return;
    }
    const generation = this.#generation;
    const status = await this.checkNow().catch(() => undefined);
    if (generation !== this.#generation || !this.#running) return;
    if (status !== undefined && isTerminalStatus(status)) return;
    this.stop();
    this.#options.onExpired();
  }
}
