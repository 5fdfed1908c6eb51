import { css, html, nothing } from 'lit';
import { definePart } from '../checkout-part.js';
import { StepPart } from '../step-part.js';
import { renderStatusLine } from '../status-line.js';
import { renderAlert } from '../alert.js';

/**
 * REDIRECT_3DS: the bank's 3-D Secure page, in this window (the element resumes the same order when the
 * payer comes back) or in a new one (this page keeps polling).
 */
export class SvcRedirectStep extends StepPart {
  static override styles = [
    ...StepPart.styles,
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

  protected override render() {
    const context = this.context;
    const order = context?.state.order;
    if (!context || !order) return nothing;
    const { state, actions, localize } = context;
    const t = localize.term;
    const newWindow = state.redirectMode === 'new-window';
    const away = order.redirected && !newWindow;
    return html`
      <section class="step" part="step" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${t.redirectTitle}</h2>
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
