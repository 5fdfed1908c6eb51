/**
 * The frame of every payment form: a native form (so Enter submits), the method's fields, the form-level
 * alert and the Pay button; after a submit with errors, focus moves to the first invalid field.
 */
import { html, type TemplateResult } from 'lit';
import type { CheckoutSettings, CheckoutState as SessionState } from '../../checkout/index.js';
import type { ShippedTerms } from '../i18n/translation.js';
import type { CheckoutContext } from '../state.js';
import { CheckoutPart, renderFormEnd } from './checkout-part.js';

export abstract class PaymentForm extends CheckoutPart {
  protected abstract renderFields(context: CheckoutContext): TemplateResult;

  protected override renderPart(context: CheckoutContext) {
    const { state, localize } = context;
    const t = localize.term;
    // What pressing the button does: a reference code pays nothing yet, it gets the code the payer pays at a payment point.
    const label = state.method === 'ReferenceCode' ? t.getCode : t.pay(state.amount ? localize.money(state.amount.total, state.amount.currency) : '').trim();
    return html`
      <form
        part="form"
        novalidate
        aria-label=${t.method[state.method]}
        @submit=${(event: Event) => {
          event.preventDefault();
          // What goes wrong is shown: in the session's state, or by the element when the session could not load.
          void context.actions.submit();
        }}
      >
        ${this.renderFields(context)} ${renderFormEnd(context, label)}
      </form>
    `;
  }

  override focusStart(): void {
    this.renderRoot.querySelector<HTMLElement>('input, select')?.focus();
  }
}

/** What a form's chunk exports: the element registers it here, so that it lands in this copy's catalogs. */
export interface FormChunk {
  tagName: string;
  element: CustomElementConstructor;
  englishTerms: ShippedTerms;
  /** What the form fills in the first frame's state before the session has come (the payer's details the shop knows). */
  prefilled?: (state: SessionState, settings: CheckoutSettings) => SessionState;
}
