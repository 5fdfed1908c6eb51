/**
 * Counts down to an order's expiry, as the merchant kit reported it (not a guess made in the browser).
 * Re-renders its host every second for the visible timer, and calls `announce` only at milestones so that a
 * screen reader hears the time left at sensible moments rather than every second.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** Seconds left at which the time is announced. */
export const ANNOUNCE_AT_SECONDS = [30 * 60, 20 * 60, 10 * 60, 5 * 60, 2 * 60, 60, 30, 10] as const;

export interface CountdownOptions {
  announce?: (secondsLeft: number) => void;
}

export class CountdownController implements ReactiveController {
  #expiresAt: number | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastSecondsLeft: number | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly options: CountdownOptions = {},
  ) {
    host.addController(this);
  }

  /** Counts down to this moment (epoch ms), or stops when undefined. */
  set expiresAt(value: number | undefined) {
    if (value === this.#expiresAt) return;
    this.#expiresAt = value;
    this.#lastSecondsLeft = undefined;
    this.#restart();
  }

  get expiresAt(): number | undefined {
    return this.#expiresAt;
  }

  /** Whole seconds left, never below zero; undefined without an expiry. */
  get secondsLeft(): number | undefined {
    if (this.#expiresAt === undefined) return undefined;
    return Math.max(0, Math.ceil((this.#expiresAt - Date.now()) / 1000));
  }

  hostConnected(): void {
    this.#restart();
  }

  hostDisconnected(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #restart(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#expiresAt === undefined) return;
    this.#timer = setInterval(() => this.#tick(), 1000);
    this.#tick();
  }

  #tick(): void {
    const left = this.secondsLeft;
    if (left === undefined) return;
    const previous = this.#lastSecondsLeft;
    this.#lastSecondsLeft = left;
    if (previous !== undefined) {
      // The milestone itself is announced ("10 seconds left"), not the second a late tick happened on.
      const crossed = ANNOUNCE_AT_SECONDS.find((mark) => previous > mark && left <= mark);
      if (crossed !== undefined) this.options.announce?.(crossed);
    }
    if (left === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
    this.host.requestUpdate();
  }
}
