import { css, html, nothing, type PropertyValues } from 'lit';
import type { CheckoutContext } from '../../state.js';
import { CountdownController } from '../../controllers/countdown.js';
import { definePart } from '../checkout-part.js';
import { StepPart, stepOrder } from '../step-part.js';
import { numberIn } from '../../format.js';

/** Outside a reference code, the time left shows in the last five minutes only. */
const LAST_MINUTES_SECONDS = 5 * 60;

/**
 * The time left to pay, counted down to the order's own expiry. The visible timer ticks every second;
 * screen readers hear the time left at milestones (30, 20, 10, 5, 2 and 1 minutes, 30 and 10 seconds).
 */
export class SvcCountdown extends StepPart {
  static override styles = [
    ...StepPart.styles,
    css`
      /* Hidden until the last minutes: no box, and so no second gap between its step's rows. */
      :host([hidden]) {
        display: none;
      }
      .countdown {
        display: flex;
        gap: 0.5em;
        align-items: baseline;
        margin: 0;
      }
      time {
        font-variant-numeric: tabular-nums;
        font-weight: 700;
        font-size: 1.125em;
      }
    `,
  ];

  static override properties = { always: { type: Boolean } };
  /** Shown all along (a reference code's deadline), not only in the last five minutes. */
  declare always: boolean;

  readonly #countdown = new CountdownController(this, { announce: (seconds) => this.#announce(seconds) });
  #spoken = '';

  protected override willUpdate(changed: PropertyValues): void {
    super.willUpdate(changed);
    const step = this.context?.state.step;
    this.#countdown.expiresAt = step && stepOrder(step)?.expiresAt;
  }

  protected override renderPart({ localize }: CheckoutContext) {
    const left = this.#countdown.secondsLeft;
    // The time left informs where it is the deadline (a reference code); elsewhere only near the end.
    this.hidden = left === undefined || (!this.always && left > LAST_MINUTES_SECONDS);
    if (left === undefined || this.hidden) return nothing;
    const t = localize.term;
    const format = (n: number) => numberIn(localize, n);
    const two = (n: number) => numberIn(localize, n, { minimumIntegerDigits: 2, useGrouping: false });
    const hours = Math.floor(left / 3600);
    const minutes = Math.floor((left % 3600) / 60);
    const seconds = left % 60;
    const clock = hours > 0 ? `${numberIn(localize, hours)}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
    const spokenMinutes = Math.ceil(left / 60);
    return html`
      <p class="countdown" part="countdown">
        <span>${t.expiresIn}</span>
        <time role="timer" dir="ltr" datetime="PT${left}S" aria-label=${left >= 60 ? t.timeLeft(spokenMinutes, 0, format) : t.timeLeft(0, left, format)}
          >${clock}</time
        >
      </p>
      <p class="visually-hidden" aria-live="polite" aria-atomic="true">${this.#spoken}</p>
    `;
  }

  #announce(secondsLeft: number): void {
    const localize = this.context?.localize;
    if (!localize) return;
    const t = localize.term;
    const format = (n: number) => numberIn(localize, n);
    this.#spoken = secondsLeft >= 60 ? t.timeLeft(Math.round(secondsLeft / 60), 0, format) : t.timeLeft(0, secondsLeft, format);
    this.requestUpdate();
  }
}

definePart('svc-countdown', SvcCountdown);
