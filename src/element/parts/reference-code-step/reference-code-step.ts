import { css, html, nothing } from 'lit';
import { groupReferenceCode } from '../../../core/index.js';
import { CheckoutPart, definePart } from '../checkout-part.js';
import { renderStatusLine } from '../status-line.js';

/**
 * The reference code: grouped for reading (123 456 789), a copy button, the channel the payer was notified
 * through, the countdown to the order's own expiry, and the live status.
 */
export class SvcReferenceCodeStep extends CheckoutPart {
  static override styles = [
    ...CheckoutPart.styles,
    css`
      .code {
        font-family: var(--_mono);
        font-size: 2em;
        font-weight: 700;
        letter-spacing: 0.08em;
        font-variant-numeric: tabular-nums;
        text-align: center;
        background: var(--_background);
        border: 1px dashed var(--_border);
        border-radius: var(--_radius);
        padding: calc(var(--_space) / 2);
        user-select: all;
      }
    `,
  ];

  protected override render() {
    const context = this.context;
    const order = context?.state.order;
    if (!context || !order?.referenceCode) return nothing;
    const { actions, localize } = context;
    const t = localize.term;
    const grouped = groupReferenceCode(order.referenceCode);
    return html`
      <section class="step" part="step" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${t.codeTitle}</h2>
        <p>${t.codeBody}</p>
        <p class="code" part="code" dir="ltr" translate="no">
          <span aria-hidden="true">${grouped}</span>
          <span class="visually-hidden">${order.referenceCode.split('').join(' ')}</span>
        </p>
        <div class="row">
          <button class="secondary" part="button-secondary" type="button" @click=${() => actions.copyReferenceCode()}>${t.copy}</button>
        </div>
        ${order.notifyMethod ? html`<p>${t.sentBy(order.notifyMethod, order.maskedEmail ?? '', order.maskedMobile ?? '')}</p>` : nothing}
        ${renderStatusLine(context, { countdown: 'always' })}
        <svc-leave-order exportparts="button-secondary"></svc-leave-order>
      </section>
    `;
  }
}

definePart('svc-reference-code-step', SvcReferenceCodeStep);
