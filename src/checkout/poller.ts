/**
 * Polls an order's status (DESIGN.md §6): one request at a time, the next only after the last returned;
 * backing off; paused while the tab is hidden, and checked at once when it shows again or when the browser is
 * back online; stopped at a terminal status, or at the order's expiry after one last check.
 */
import { isTerminalStatus, pollDelay, type PaymentStatus } from '../core/index.js';
import type { CheckoutEnvironment } from './environment.js';

/** The schedule is src/core's (schedule.ts), which the kit's status stream follows too. */
export { DEFAULT_POLL_INTERVAL_MS, POLL_BACKOFF } from '../core/index.js';

export interface StatusPollerOptions {
  /** One status request; resolves to the status seen, or undefined when the request failed. */
  check: (signal: AbortSignal) => Promise<PaymentStatus | undefined>;
  /** The order's expiry passed and the last check still saw it pending. */
  onExpired: () => void;
  /** Base interval in milliseconds (read at every scheduling, so it can change). */
  interval: () => number;
  /** The clock, timers, visibility and connectivity. */
  environment: Pick<CheckoutEnvironment, 'now' | 'timers' | 'visibility' | 'online'>;
}

/**
 * Runs only while connected (`connect()`): a session's host that leaves the page pauses it, and coming back
 * checks at once.
 */
export class StatusPoller {
  #running = false;
  #connected = false;
  /** Another source follows the order for now (the status stream): no check is made until `release()`. */
  #held = false;
  #expiresAt: number | undefined;
  #step = 0;
  /** Counts starts and stops: a check that returns after either belongs to a past run and does nothing. */
  #generation = 0;
  #timer: unknown;
  #inFlight: Promise<PaymentStatus | undefined> | undefined;
  #abort: AbortController | undefined;
  #unsubscribe: (() => void)[] = [];
  readonly options: StatusPollerOptions;

  constructor(options: StatusPollerOptions) {
    this.options = options;
  }

  get #env() {
    return this.options.environment;
  }

  #hidden(): boolean {
    return this.#env.visibility.hidden();
  }

  get running(): boolean {
    return this.#running;
  }

  /**
   * Starts polling. `checkFirst` checks at once (a resumed order); otherwise after the first interval. A host
   * that is not in the page starts polling when it is connected.
   */
  start(options: { expiresAt?: number | undefined; checkFirst?: boolean } = {}): void {
    this.stop();
    this.#running = true;
    this.#expiresAt = options.expiresAt;
    this.#step = 0;
    if (!this.#connected || this.#held) return;
    this.#listen();
    if (options.checkFirst) void this.#tick();
    else this.#schedule();
  }

  /** The order's expiry moved: the last check waits for the new one (the next timer is set again). */
  retime(expiresAt: number): void {
    this.#expiresAt = expiresAt;
    if (this.#timer !== undefined) this.#schedule();
  }

  /** Stops checking, keeping its place in the schedule: another source follows the order meanwhile. */
  hold(): void {
    if (this.#held) return;
    this.#held = true;
    // A check in flight is left to finish (it may be the payer's own `checkNow()`); the schedule ends here.
    this.#generation += 1;
    this.#clearTimer();
  }

  /**
   * Checks again after `hold()`: at once (something may have been missed), or at the next step's time — from its
   * place in the schedule either way, so that a stream tried and refused every few minutes costs no brisk minutes.
   */
  release(options: { checkAtOnce: boolean }): void {
    if (!this.#held) return;
    this.#held = false;
    if (!this.#running || !this.#connected) return;
    this.#listen();
    if (options.checkAtOnce) this.#checkAtOnce(false);
    else this.#schedule();
  }

  get held(): boolean {
    return this.#held;
  }

  stop(): void {
    this.#running = false;
    this.#pause();
  }

  /** A check on demand; shares the request already in flight rather than starting a second one. */
  checkNow(): Promise<PaymentStatus | undefined> {
    if (this.#inFlight) return this.#inFlight;
    this.#abort = new AbortController();
    const signal = this.#abort.signal;
    this.#inFlight = this.options.check(signal).finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  /** The host is in the page: polling (when started) runs, and coming back checks at once. */
  connect(): void {
    if (this.#connected) return;
    this.#connected = true;
    if (!this.#running || this.#held) return;
    // Back in the page (moved, or re-attached): look at once, then poll briskly again.
    this.#listen();
    this.#step = 0;
    void this.#tick();
  }

  /** The host left the page: timers and the check in flight stop; `connect()` resumes. */
  disconnect(): void {
    this.#connected = false;
    this.#pause();
  }

  /** Stops timers, listeners and the check in flight; `#running` says whether to resume. */
  #pause(): void {
    this.#generation += 1;
    this.#clearTimer();
    this.#abort?.abort();
    this.#abort = undefined;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  #listen(): void {
    if (this.#unsubscribe.length > 0) return;
    this.#unsubscribe.push(
      this.#env.visibility.subscribe(() => this.#visibilityChanged()),
      this.#env.online.subscribe(() => this.#backOnline()),
    );
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#env.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    this.#clearTimer();
    if (!this.#running || !this.#connected || this.#held || this.#hidden()) return;
    let delay = pollDelay(this.#step, this.options.interval());
    // The check that falls on the expiry is the last, whatever the clock reads when its timer fires.
    let last = false;
    if (this.#expiresAt !== undefined) {
      const remaining = Math.max(0, this.#expiresAt - this.#env.now());
      if (remaining <= delay) {
        delay = remaining;
        last = true;
      }
    }
    this.#arm(delay, last);
  }

  #arm(delay: number, last: boolean): void {
    this.#timer = this.#env.timers.setTimeout(() => {
      this.#timer = undefined;
      // Timers may fire a millisecond or so before the wall clock says they should (Firefox does);
      // the last check waits for the expiry itself, so that it never reports a moment too early.
      const early = last && this.#expiresAt !== undefined ? this.#expiresAt - this.#env.now() : 0;
      if (early > 0) this.#arm(early, last);
      else void this.#tick(last);
    }, delay);
  }

  async #tick(last = false): Promise<void> {
    if (!this.#running || !this.#connected || this.#held || this.#hidden()) return;
    const generation = this.#generation;
    const status = await this.checkNow().catch(() => undefined);
    if (generation !== this.#generation || !this.#running) return;
    if (status !== undefined && isTerminalStatus(status)) {
      this.stop();
      return;
    }
    if (last || (this.#expiresAt !== undefined && this.#env.now() >= this.#expiresAt)) {
      // That was the last check, made at expiry; the order is still pending here.
      this.stop();
      this.options.onExpired();
      return;
    }
    this.#step += 1;
    this.#schedule();
  }

  #visibilityChanged(): void {
    if (!this.#running || !this.#connected || this.#held) return;
    if (this.#hidden()) {
      this.#clearTimer();
      return;
    }
    // Back in view: the payer is looking, so check at once and poll briskly again.
    this.#checkAtOnce();
  }

  /** The browser has a network again: the wait may have been long, so look at once. */
  #backOnline(): void {
    if (!this.#running || !this.#connected || this.#held || this.#hidden()) return;
    this.#checkAtOnce();
  }

  #checkAtOnce(brisk = true): void {
    if (brisk) this.#step = 0;
    this.#clearTimer();
    const inFlight = this.#inFlight;
    if (!inFlight) {
      void this.#tick();
      return;
    }
    // That check counts as this one; the schedule goes on from its answer (unless a tick of this run has it).
    const generation = this.#generation;
    void inFlight.finally(() => {
      if (generation === this.#generation && this.#timer === undefined) this.#schedule();
    });
  }
}
