import { css, html, nothing } from 'lit';
import { groupReferenceCode } from '../../../core/index.js';
import type { CheckoutContext } from '../../state.js';
import { ACTION_VIEWS } from '../action-views.js';
import { definePart } from '../checkout-part.js';
import { ActionPart, type ActionOrder } from '../step-part.js';
import { renderStatusLine } from '../status-line.js';
import { timeIn } from '../../format.js';

/**
 * The reference code as a voucher: the code grouped for reading (123 456 789) with its copy button inside its
 * box (the row mirrored in Arabic as every row is; the digits in their own left-to-right order), the amount and the moment it stops working together, the channel the payer was notified through (so the
 * page may be closed), the countdown to the order's own expiry, and the live status.
 */
export class SvcReferenceCodeStep extends ActionPart {
  static override styles = [
    ...ActionPart.styles,
    css`
      .code {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        justify-content: center;
        gap: calc(var(--_space) / 2);
        background: var(--_background);
        border: 1px dashed var(--_border);
        border-radius: var(--_radius);
        padding: calc(var(--_space) / 2);
        margin-block: var(--_space);
      }
      .digits {
        font-family: var(--_mono);
        font-size: 2em;
        font-weight: 700;
        letter-spacing: 0.08em;
        font-variant-numeric: tabular-nums;
        user-select: all;
      }
      .code button {
        font-size: 0.875em;
      }
      .deadline {
        font-weight: 600;
        font-variant-numeric: tabular-nums;
      }
      .where h3 {
        margin: 0;
        font-size: 1em;
      }
      .where p {
        margin: 0.25em 0 0;
      }
      /* Printed, the step is a voucher: the code, the amount and deadline, where to pay; no buttons, no live status. */
      @media print {
        button,
        svc-leave-order,
        [part~='status'] {
          display: none;
        }
        .code {
          border-style: solid;
          color: #000;
          background: #fff;
        }
        .where {
          break-inside: avoid;
        }
      }
    `,
  ];

  /** The voucher was copied (no Web Share here): said until the next render of another order. */
  #copied = false;

  /** The voucher as text: shared where the browser shares (a phone's share sheet), otherwise copied. */
  async #share(context: CheckoutContext, order: ActionOrder): Promise<void> {
    const { localize } = context;
    const t = localize.term;
    const amount = context.state.amount;
    const deadline = amount && order.expiresAt !== undefined ? t.payBefore(localize.money(amount.total, amount.currency), timeIn(localize, order.expiresAt)) : t.codeBody;
    const text = t.voucherText(context.state.merchantName ?? '', groupReferenceCode(order.referenceCode ?? ''), deadline, context.actions.whereToPay(t.$code) ?? t.whereToPay);
    const share = (navigator as Navigator & { share?: (data: ShareData) => Promise<void>; canShare?: (data: ShareData) => boolean }).share;
    if (typeof share === 'function' && (navigator.canShare?.({ text }) ?? true)) {
      try {
        await share.call(navigator, { title: t.codeTitle, text });
        return;
      } catch (error) {
        // The payer closed the share sheet: nothing more to do. Any other refusal: copied instead.
        if ((error as Error)?.name === 'AbortError') return;
      }
    }
    try {
      await navigator.clipboard.writeText(text);
      this.#copied = true;
    } catch {
      this.#copied = false;
      context.actions.copyReferenceCode?.();
    }
    this.requestUpdate();
  }

  protected override renderAction(context: CheckoutContext, order: ActionOrder) {
    if (!order.referenceCode) return nothing;
    const { actions, localize } = context;
    const t = localize.term;
    const grouped = groupReferenceCode(order.referenceCode);
    const amount = context.state.amount;
    const deadline =
      amount && order.expiresAt !== undefined ? t.payBefore(localize.money(amount.total, amount.currency), timeIn(localize, order.expiresAt)) : undefined;
    return html`
      <section class="step" part="step" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${ACTION_VIEWS[order.actionType].title(t)}</h2>
        <div class="code" part="code" translate="no">
          <span class="digits" dir="ltr" aria-hidden="true">${grouped}</span>
          <span class="visually-hidden">${order.referenceCode.split('').join(' ')}</span>
          <button class="secondary" part="button-secondary button-copy" type="button" @click=${() => actions.copyReferenceCode()}>${t.copy}</button>
        </div>
        <p class=${deadline ? 'deadline' : ''} part="deadline">${deadline ?? t.codeBody}</p>
        ${order.notifyMethod ? html`<p>${t.canClose} ${t.sentBy(order.notifyMethod, order.maskedEmail ?? t.onFile.email, order.maskedMobile ?? t.onFile.mobile)}</p>` : nothing}
        <section class="where" part="where" aria-labelledby="where">
          <h3 id="where">${t.whereTitle}</h3>
          <p>${context.actions.whereToPay(t.$code) ?? t.whereToPay}</p>
        </section>
        <div class="row">
          <button class="secondary" part="button-secondary button-print" type="button" @click=${() => window.print()}>${t.printCode}</button>
          <button class="secondary" part="button-secondary button-share" type="button" @click=${() => this.#share(context, order)}>${t.shareCode}</button>
        </div>
        <p class="hint" role="status">${this.#copied ? t.voucherCopied : ''}</p>
        ${renderStatusLine(context, { countdown: 'always' })}
        <svc-leave-order exportparts="button-secondary" .context=${context}></svc-leave-order>
      </section>
    `;
  }
}

definePart('svc-reference-code-step', SvcReferenceCodeStep);

