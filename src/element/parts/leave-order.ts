import { html, nothing } from 'lit';
import type { CheckoutContext } from '../state.js';
import { definePart } from './checkout-part.js';
import { StepPart, stepOrder } from './step-part.js';

/**
 * "Use another method" on a waiting step, with a confirmation: the order is left (not cancelled) and the form
 * comes back for a new attempt. A payer who chose wrong is never locked in until the order expires.
 */
export class SvcLeaveOrder extends StepPart {
  #confirming = false;

  protected override renderPart(context: CheckoutContext) {
    if (!stepOrder(context.state.step)) return nothing;
    const { actions, localize } = context;
    const t = localize.term;
    if (!this.#confirming) {
      return html`<div class="row">
        <button class="secondary" part="button-secondary" type="button" @click=${() => this.#confirm(true)}>${t.leaveOrder}</button>
      </div>`;
    }
    return html`
      <div class="confirm" role="group" aria-labelledby="leave-question">
        <p id="leave-question">${t.leaveConfirm}</p>
        <div class="row">
          <button class="secondary" part="button-secondary" type="button" @click=${() => actions.retry()}>${t.leaveYes}</button>
          <button class="secondary" part="button-secondary" type="button" data-keep @click=${() => this.#confirm(false)}>${t.leaveNo}</button>
        </div>
      </div>
    `;
  }

  /** Shows or hides the question; focus stays on the answer the payer is most likely to want back. */
  async #confirm(on: boolean): Promise<void> {
    this.#confirming = on;
    this.requestUpdate();
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLButtonElement>(on ? '[data-keep]' : 'button')?.focus();
  }
}

definePart('svc-leave-order', SvcLeaveOrder);
