import { html, nothing } from 'lit';
import { CheckoutPart, definePart } from '../checkout-part.js';
import { renderStatusLine } from '../status-line.js';

/** A pending order whose next action this page does not know (its create answer was lost): wait, or start again. */
export class SvcWaitingStep extends CheckoutPart {
  protected override render() {
    const context = this.context;
    if (!context) return nothing;
    const { state, actions, localize } = context;
    const t = localize.term;
    return html`
      <section class="step" part="step" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${t.waiting}</h2>
        ${state.alert ? html`<p class="alert" part="alert">${state.alert}</p>` : nothing} ${renderStatusLine(context)}
        <div class="row">
          <button class="secondary" part="button-secondary" type="button" @click=${() => actions.retry()}>${t.startOver}</button>
        </div>
      </section>
    `;
  }
}

definePart('svc-waiting-step', SvcWaitingStep);
