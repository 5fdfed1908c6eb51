/**
 * Keyboard and screen reader users follow the payment: when the step changes while focus is in the element (the
 * payer pressed Pay, Confirm, Use another method), focus moves to the start of the new step. Comes with the session
 * (src/element/engine.ts): before it, the first frame's form is the only step.
 */
import type { LitElement, ReactiveController, ReactiveControllerHost } from 'lit';
import { orderOf, type CheckoutSession } from '../../checkout/index.js';

export class StepFocusController implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  readonly #session: CheckoutSession;
  #step: string;
  #focus = false;

  constructor(host: ReactiveControllerHost & HTMLElement, session: CheckoutSession) {
    this.#host = host;
    this.#session = session;
    this.#step = this.#stepNow();
    // Read at the change, before the update: the focused control (Pay, Confirm) goes away with its step.
    session.subscribe(() => (this.#focus ||= host.matches(':focus-within')));
    host.addController(this);
  }

  /** The step shown: the kind of view, and the next action. */
  #stepNow(): string {
    const { phase } = this.#session.state;
    const kind = phase.kind === 'idle' ? 'form' : phase.kind === 'looking-up' ? 'waiting' : phase.kind;
    return `${kind}:${orderOf(phase)?.actionType ?? ''}`;
  }

  hostUpdate(): void {
    const step = this.#stepNow();
    if (step === this.#step) this.#focus = false;
    this.#step = step;
  }

  hostUpdated(): void {
    if (!this.#focus) return;
    this.#focus = false;
    void focusStep(this.#host.shadowRoot?.querySelector('.body'));
  }
}

/**
 * Focuses the start of the step in the element's body: its last part (the shop's result slot may follow it, and "Pay on
 * your phone" the form: neither is the step).
 */
async function focusStep(body: Element | null | undefined): Promise<void> {
  const parts = [...(body?.children ?? [])].filter((child) => child.localName !== 'slot' && child.localName !== 'svc-pay-elsewhere');
  const part = parts.at(-1) as (LitElement & { focusStart?: () => void }) | undefined;
  if (!part) return;
  await part.updateComplete;
  part.focusStart?.();
}
