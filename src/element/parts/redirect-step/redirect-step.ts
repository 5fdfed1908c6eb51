import { css, html } from 'lit';
import type { CheckoutContext } from '../../state.js';
import { ACTION_VIEWS } from '../action-views.js';
import { definePart } from '../checkout-part.js';
import { ActionPart, type ActionOrder } from '../step-part.js';
import { renderStatusLine } from '../status-line.js';
import { renderAlert } from '../alert.js';

/**
 * REDIRECT_3DS: the bank's 3-D Secure page, in this window (the element resumes the same order when the
 * payer comes back) or in a new one (this page keeps polling).
 */
export class SvcRedirectStep extends ActionPart {
  static override styles = [
    ...ActionPart.styles,
    css`
      .forward {
        display: inline-block;
        margin-inline-start: 0.4em;
      }
      /* The arrow points the way the text reads. */
      :host(:dir(rtl)) .forward {
        transform: scaleX(-1);
      }
    `,
  ];

  protected override renderAction(context: CheckoutContext, order: ActionOrder) {
    const { state, actions, localize } = context;
    const t = localize.term;
    const newWindow = state.redirectMode === 'new-window';
    const away = order.redirected && !newWindow;
    return html`
      <section class="step" part="step" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${ACTION_VIEWS[order.actionType].title(t)}</h2>
        <p>${newWindow && order.redirected ? t.redirectWindowOpened : t.redirectBody}</p>
        ${renderAlert(state.alert, { urgent: true })}
        <div class="row">
          <button class=${order.redirected ? 'secondary' : 'primary'} part=${order.redirected ? 'button-secondary' : 'button'} type="button" @click=${() => actions.openRedirect()}>
            ${order.redirected ? t.redirectReopen : t.redirectGo}<span class="forward" aria-hidden="true">→</span>
          </button>
        </div>
        ${away || newWindow ? renderStatusLine(context) : html`<p class="status" part="status">${t.redirecting}</p>`}
      </section>
    `;
  }
}

definePart('svc-redirect-step', SvcRedirectStep);
