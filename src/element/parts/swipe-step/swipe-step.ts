import { html } from 'lit';
import type { CheckoutContext } from '../../state.js';
import { ACTION_VIEWS } from '../action-views.js';
import { definePart } from '../checkout-part.js';
import { ActionPart, type ActionOrder } from '../step-part.js';
import { renderStatusLine } from '../status-line.js';

/** SWIPE_CARD: the payer swipes or inserts the card at the terminal; the status follows live. */
export class SvcSwipeStep extends ActionPart {
  protected override renderAction(context: CheckoutContext, order: ActionOrder) {
    const t = context.localize.term;
    return html`
      <section class="step" part="step" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${ACTION_VIEWS[order.actionType].title(t)}</h2>
        <p>${t.swipeBody(order.sn ?? '')}</p>
        ${renderStatusLine(context)}
        <svc-leave-order exportparts="button-secondary" .context=${context}></svc-leave-order>
      </section>
    `;
  }
}

definePart('svc-swipe-step', SvcSwipeStep);
