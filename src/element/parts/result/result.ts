import { css, html, nothing } from 'lit';
import { CheckoutPart, definePart } from '../checkout-part.js';

/**
 * The outcome: paid (here, or before this checkout), failed (with the service's reason), expired, or an order of
 * this reference for another amount; failed and expired offer a new attempt.
 */
export class SvcResult extends CheckoutPart {
  static override styles = [
    ...CheckoutPart.styles,
    css`
      .result {
        display: grid;
        gap: var(--_space);
        border-inline-start: 6px solid var(--_muted);
        background: var(--_surface);
        border-radius: var(--_radius);
        padding: var(--_space);
      }
      .result.success {
        border-inline-start-color: var(--_success);
      }
      .result.fail {
        border-inline-start-color: var(--_danger);
      }
      .mark {
        font-weight: 800;
        margin-inline-end: 0.35em;
      }
      .success .mark {
        color: var(--_success);
      }
      .fail .mark {
        color: var(--_danger);
      }
    `,
  ];

  protected override render() {
    const context = this.context;
    const state = context?.state;
    if (!context || !state || state.step.kind !== 'result') return nothing;
    const { localize, actions } = context;
    const t = localize.term;
    const order = state.order;
    const outcome = state.step.outcome;
    const amount = order?.amount ?? state.amount;
    const money = amount ? localize.money(amount.total, amount.currency) : '';
    if (outcome === 'SUCCESS' || outcome === 'PAID_BEFORE') {
      const before = outcome === 'PAID_BEFORE';
      return html`
        <section class="result success" part="result" aria-labelledby="heading">
          <h2 id="heading" part="heading" tabindex="-1">
            <span class="mark" aria-hidden="true">✓</span>${before ? t.paidBeforeTitle : t.successTitle}
          </h2>
          <p>${before ? t.paidBeforeBody(money, order?.orderNo ?? '') : t.successBody(money, order?.orderNo ?? '')}</p>
        </section>
      `;
    }
    if (outcome === 'MISMATCH') {
      return html`
        <section class="result fail" part="result" aria-labelledby="heading">
          <h2 id="heading" part="heading" tabindex="-1"><span class="mark" aria-hidden="true">✕</span>${t.mismatchTitle}</h2>
          <p>${t.mismatchBody}</p>
        </section>
      `;
    }
    const failed = outcome === 'FAIL';
    return html`
      <section class="result ${failed ? 'fail' : 'expired'}" part="result" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">
          <span class="mark" aria-hidden="true">${failed ? '✕' : '⏱'}</span>${failed ? t.failTitle : t.expiredTitle}
        </h2>
        <p>${failed ? t.failBody : t.expiredBody}</p>
        ${failed && order?.failureReason ? html`<p>${t.failReason(order.failureReason)}</p>` : nothing}
        <button class="primary" part="button" type="button" @click=${() => actions.retry()}>${failed ? t.retry : t.startOver}</button>
      </section>
    `;
  }
}

definePart('svc-result', SvcResult);
