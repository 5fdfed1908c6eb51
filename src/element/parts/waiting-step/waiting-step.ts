import { html, nothing } from 'lit';
import type { CheckoutContext } from '../../state.js';
import { definePart } from '../checkout-part.js';
import { StepPart, stepOrder } from '../step-part.js';
import { renderStatusLine } from '../status-line.js';
import { renderAlert } from '../alert.js';

/** A pending order whose next action this page does not know (its create answer was lost): wait, or start again. */
export class SvcWaitingStep extends StepPart {
  protected override renderPart(context: CheckoutContext) {
    const { state, actions, localize } = context;
    const t = localize.term;
    // A reference code already went to the payer: a new attempt would make a second code they could also pay.
    const order = stepOrder(state.step);
    const codeSent = order?.payMethod === 'ReferenceCode' && order.notifyMethod !== undefined;
    return html`
      <section class="step" part="step" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${t.waiting}</h2>
        ${renderAlert(state.alert)} ${renderStatusLine(context)}
        ${codeSent
          ? nothing
          : html`<div class="row">
              <button class="secondary" part="button-secondary" type="button" @click=${() => actions.retry()}>${t.startOver}</button>
            </div>`}
      </section>
    `;
  }
}

definePart('svc-waiting-step', SvcWaitingStep);
