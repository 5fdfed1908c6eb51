/**
 * The checkout's timings (src/core/timings.ts, docs/observability.md), in the session's chunk: the moments the first
 * frame noted (controllers/checkout.ts), each step's duration from the session's state changes — the machine's phases,
 * never the DOM — and, when the page goes away unfinished, the step the payer stopped at. Each is an `svc-timing`
 * event; with `send-timings`, they are also sent as beacons to the merchant's own endpoint (`endpoint` + `/timings`),
 * never anywhere else: when the page is hidden or goes away, and when the checkout reaches its result.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { CheckoutSession, CheckoutState } from '../../checkout/index.js';
import { MERCHANT_PATHS } from '../../core/paths.js';
import { TIMING_LIMITS, type CheckoutTiming, type TimingStep } from '../../core/timings.js';
import { SvcTimingEvent } from '../events/svc-timing.js';

/** What the first frame noted (`performance.now()`). */
export interface FirstFrameMarks {
  readonly paintedAt: number | undefined;
  readonly interactedAt: number | undefined;
}

type Host = ReactiveControllerHost & HTMLElement & { sendTimings?: boolean | undefined };

/** Where the payer is, in a timing's words, and since when. */
interface Step extends Pick<CheckoutTiming, 'action' | 'method'> {
  step: TimingStep;
  since: number;
  /** The payer left for the bank's 3-D Secure page in this window: the page going away is no stop. */
  atTheBank: boolean;
}

/** The step a state shows; none before the checkout is set up. */
function stepOf(state: CheckoutState, since: number): Step | undefined {
  const { phase } = state;
  if (phase.kind === 'idle') return undefined;
  const step: Step = { step: phase.kind, method: state.method, since, atTheBank: false };
  if (phase.kind === 'action') {
    step.action = phase.order.actionType;
    step.atTheBank = phase.order.redirected === true && state.redirectMode === 'same-window';
  }
  return step;
}

/** A method chosen on the form is the same step: the step's method is the one chosen when it ends. */
const sameStep = (a: Step | undefined, b: Step | undefined) => a?.step === b?.step && a?.action === b?.action;

/** Frames the first frame's paint is waited for, should the session come before it (at most a second). */
const PAINT_WAIT_FRAMES = 60;

export class TimingController implements ReactiveController {
  readonly #host: Host;
  readonly #session: CheckoutSession;
  readonly #marks: FirstFrameMarks;
  #step: Step | undefined;
  #toldPainted = false;
  #toldInteracted = false;
  #paintWait = PAINT_WAIT_FRAMES;
  /** Timings not yet sent as a beacon (kept only while the page may ask for them). */
  readonly #unsent: CheckoutTiming[] = [];

  constructor(host: Host, session: CheckoutSession, marks: FirstFrameMarks) {
    this.#host = host;
    this.#session = session;
    this.#marks = marks;
    session.subscribe((state) => this.#observe(state));
    host.addController(this);
  }

  hostConnected(): void {
    addEventListener('pagehide', this.#leaving);
    document.addEventListener('visibilitychange', this.#hidden);
  }

  hostDisconnected(): void {
    removeEventListener('pagehide', this.#leaving);
    document.removeEventListener('visibilitychange', this.#hidden);
    // Taken off the page for good (not moved within it): where the payer was is where they stopped.
    queueMicrotask(() => {
      if (!this.#host.isConnected) this.#leaving();
    });
  }

  /** The first frame's moments, told once each as soon as both the session and the moment are there. */
  hostUpdated(): void {
    const { paintedAt, interactedAt } = this.#marks;
    if (!this.#toldPainted && paintedAt !== undefined) {
      this.#toldPainted = true;
      this.#tell({ kind: 'first-frame', ms: Math.round(paintedAt) });
    }
    if (!this.#toldInteracted && interactedAt !== undefined) {
      this.#toldInteracted = true;
      this.#tell({ kind: 'first-interaction', ms: Math.round(interactedAt) });
    }
    // The session came before the first frame's paint: looked at again at the next frames (a page hidden when the
    // element rendered paints no first frame, and is given up on).
    if (!this.#toldPainted && this.#paintWait === PAINT_WAIT_FRAMES) this.#waitForPaint();
  }

  #waitForPaint(): void {
    if (this.#toldPainted || this.#paintWait-- <= 0) return;
    requestAnimationFrame(() => {
      this.hostUpdated();
      this.#waitForPaint();
    });
  }

  #observe(state: CheckoutState): void {
    const now = performance.now();
    // The form was on screen since the first frame, before the session came.
    const next = stepOf(state, this.#step === undefined && state.phase.kind === 'form' ? (this.#marks.paintedAt ?? now) : now);
    if (this.#step && next && sameStep(this.#step, next)) {
      this.#step.method = next.method;
      this.#step.atTheBank = next.atTheBank;
      return;
    }
    const ended = this.#step;
    this.#step = next;
    if (ended) this.#tell(this.#timing('step', ended, now));
    if (next?.step === 'result') this.#send();
  }

  /** The page is going away: the step the payer was on, unless the checkout is done, and what is left to send. */
  readonly #leaving = (): void => {
    const step = this.#step;
    if (step && step.step !== 'result' && !step.atTheBank) this.#tell(this.#timing('stop', step, performance.now()));
    this.#step = undefined;
    this.#send();
  };

  readonly #hidden = (): void => {
    if (document.visibilityState === 'hidden') this.#send();
  };

  #timing(kind: 'step' | 'stop', step: Step, now: number): CheckoutTiming {
    const timing: CheckoutTiming = { kind, step: step.step, ms: Math.round(now - step.since) };
    if (step.action) timing.action = step.action;
    if (step.method) timing.method = step.method;
    return timing;
  }

  #tell(timing: CheckoutTiming): void {
    this.#host.dispatchEvent(new SvcTimingEvent(timing));
    this.#unsent.push(timing);
    if (this.#unsent.length >= TIMING_LIMITS.perBeacon) this.#send();
  }

  /** One beacon of what is unsent, to the kit behind `endpoint`: only when the page asked for them. */
  #send(): void {
    const timings = this.#unsent.splice(0);
    const endpoint = this.#session.config?.endpoint;
    if (!this.#host.sendTimings || !endpoint || timings.length === 0 || typeof navigator.sendBeacon !== 'function') return;
    navigator.sendBeacon(`${endpoint.replace(/\/+$/, '')}${MERCHANT_PATHS.timings}`, JSON.stringify({ timings }));
  }
}
