import { css, html, nothing, svg } from 'lit';
import type { ActiveOrder, CheckoutContext } from '../../state.js';
import { renderAlert } from '../alert.js';
import { definePart } from '../checkout-part.js';
import { StepPart } from '../step-part.js';
import { dateTimeIn } from '../../format.js';

/**
 * The outcome: paid (here, or before this checkout), failed (with the service's reason), expired, or an order of
 * this reference for another amount; failed and expired offer a new attempt.
 */
export class SvcResult extends StepPart {
  static override styles = [
    ...StepPart.styles,
    css`
      .result {
        display: grid;
        gap: var(--_space);
        /* One container: the element's own. The outcome's colour marks the edge, with no card of its own. */
        border-inline-start: 4px solid var(--_muted);
        padding-inline-start: var(--_space);
      }
      .result.success {
        border-inline-start-color: var(--_success);
      }
      .result.fail {
        border-inline-start-color: var(--_danger);
      }
      .mark {
        vertical-align: -0.2em;
        margin-inline-end: 0.35em;
      }
      .receipt {
        display: grid;
        grid-template-columns: max-content 1fr;
        gap: 0.25em 1em;
        margin: 0;
      }
      .receipt dt {
        color: var(--_muted);
      }
      .receipt dd {
        margin: 0;
        display: flex;
        flex-wrap: wrap;
        gap: 0.5em;
        align-items: center;
      }
      /*
       * The date and the time each stay whole, and so does an identifier (an order's reference breaks at its hyphens
       * otherwise, mid-identifier); a narrow receipt (a phone) puts each label above its value.
       */
      .time span,
      .mono {
        white-space: nowrap;
      }
      .result {
        container-type: inline-size;
      }
      @container (max-width: 24em) {
        .receipt {
          grid-template-columns: 1fr;
          row-gap: 0;
        }
        .receipt dd {
          margin-block-end: 0.5em;
        }
      }
      .reason {
        font-weight: 600;
      }
      .chip {
        border: 1px solid var(--_border);
        border-radius: 999px;
        padding: 0 0.6em;
      }
      .success .mark {
        color: var(--_success);
      }
      .fail .mark {
        color: var(--_danger);
      }
    `,
  ];

  /** When this result was first shown, for the receipt (by order number). */
  #shown: { orderNo: string; at: Date } | undefined;

  protected override renderPart(context: CheckoutContext) {
    const { state, localize, actions } = context;
    if (state.step.kind !== 'result') return nothing;
    const t = localize.term;
    const { order, outcome } = state.step;
    // The payer's number for the order is the shop's (its first attempt's), in the element's header above: said
    // there once, not again in the words and the receipt. The service's number of the payment is the receipt's.
    const reference = state.reference ?? order?.reference ?? '';
    const amount = order?.amount ?? state.amount;
    const money = amount ? localize.money(amount.total, amount.currency) : '';
    if (outcome === 'SUCCESS' || outcome === 'PAID_BEFORE') {
      const before = outcome === 'PAID_BEFORE';
      return html`
        <section class="result success" part="result" aria-labelledby="heading">
          <h2 id="heading" part="heading" tabindex="-1">${icon('success')}${before ? t.paidBeforeTitle : t.successTitle}</h2>
          <p>${before ? t.paidBeforeBody(money, reference, order?.orderNo ?? '') : t.successBody(money)}</p>
          ${renderAlert(state.notice, { kind: 'notice' })}
          ${order && !before ? this.#receipt(order) : nothing}
        </section>
      `;
    }
    if (outcome === 'MISMATCH') {
      return html`
        <section class="result fail" part="result" aria-labelledby="heading">
          <h2 id="heading" part="heading" tabindex="-1">${icon('fail')}${t.mismatchTitle}</h2>
          <p>${t.mismatchBody}</p>
        </section>
      `;
    }
    const failed = outcome === 'FAIL';
    // The service's failure code in the payer's words; its own reason only when the code is not known here.
    const reason = order?.failureCode ? t.failure[order.failureCode] : undefined;
    // The reason first: it is what the payer can act on (another card, another account); then what it means.
    return html`
      <section class="result ${failed ? 'fail' : 'expired'}" part="result" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${icon(failed ? 'fail' : 'expired')}${failed ? t.failTitle : t.expiredTitle}</h2>
        ${failed && (reason ?? order?.failureReason) ? html`<p class="reason">${reason ?? t.failReason(order?.failureReason ?? '')}</p>` : nothing}
        <p>${failed ? t.failBody : t.expiredBody}</p>
        <button class="primary" part="button" type="button" @click=${() => actions.retry()}>${failed ? t.retry : t.startOver}</button>
      </section>
    `;
  }

  /** The method, the time, and the service's number of the payment, which the payer can copy as they copy a reference code. */
  #receipt({ orderNo, payMethod, methodUnknown }: ActiveOrder) {
    const { localize } = this.context!;
    const t = localize.term;
    if (this.#shown?.orderNo !== orderNo) this.#shown = { orderNo, at: new Date() };
    // The date and the time each in one piece: a narrow receipt puts the time under the date, never half of it.
    const date = dateTimeIn(localize, this.#shown.at, { dateStyle: 'medium' });
    const time = dateTimeIn(localize, this.#shown.at, { timeStyle: 'short' });
    return html`
      <dl class="receipt">
        ${methodUnknown ? nothing : html`<dt>${t.receipt.method}</dt><dd>${t.method[payMethod]}</dd>`}
        <dt>${t.receipt.time}</dt>
        <dd class="time"><span>${date}</span><span>${time}</span></dd>
        <dt>${t.receipt.orderNo}</dt>
        <dd>
          <span class="chip mono" dir="ltr" translate="no">${orderNo}</span>
          <button class="secondary" part="button-secondary button-copy" type="button" @click=${() => void navigator.clipboard?.writeText(orderNo).catch(() => undefined)}>${t.receipt.copy}</button>
        </dd>
      </dl>
    `;
  }
}

/** Inline SVG marks: the same on every platform (the ✓ ✕ ⏱ glyphs turn into colour emoji on phones). */
function icon(kind: 'success' | 'fail' | 'expired') {
  const paths = {
    success: svg`<path d="M5 12.5l4.5 4.5L19 7.5" />`,
    fail: svg`<path d="M7 7l10 10M17 7L7 17" />`,
    expired: svg`<circle cx="12" cy="13" r="7" /><path d="M12 9.5V13l2.5 2M10 3h4" />`,
  };
  return html`<svg class="mark" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"
    fill="none" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round">${paths[kind]}</svg>`;
}

definePart('svc-result', SvcResult);
