import { html, nothing } from 'lit';
import { definePart } from '../checkout-part.js';
import { StepPart } from '../step-part.js';
import { renderStatusLine } from '../status-line.js';

/** SWIPE_CARD: the payer swipes or inserts the card at the terminal; the status follows live. */
export class SvcSwipeStep extends StepPart {
  protected override render() {
    const context = this.context;
    const order = context?.state.order;
    if (!context || !order) return nothing;
    const t = context.localize.term;
    return html`
      <section class="step" part="step" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${t.swipeTitle}</h2>
        <p>${t.swipeBody(order.sn ?? '')}</p>
        ${renderStatusLine(context)}
        <svc-leave-order exportparts="button-secondary" .context=${context}></svc-leave-order>
      </section>
    `;
  }
}

definePart('svc-swipe-step', SvcSwipeStep);
