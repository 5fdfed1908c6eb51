/**
 * The frame of every payment form: a native form (so Enter submits), the method's fields, the form-level
 * alert and the Pay button; after a submit with errors, focus moves to the first invalid field.
 */
import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { CheckoutContext } from '../state.js';
import { CheckoutPart, renderFormEnd } from './checkout-part.js';

export abstract class PaymentForm extends CheckoutPart {
  #seenSubmits: number | undefined;

  protected abstract renderFields(context: CheckoutContext): TemplateResult;

  protected override render() {
    const context = this.context;
    if (!context) return nothing;
    const { state, localize } = context;
    const t = localize.term;
    const label = state.amount ? t.pay(localize.money(state.amount.total, state.amount.currency)) : t.pay('').trim();
    return html`
      <form
        part="form"
        novalidate
        aria-label=${t.method[state.method]}
        @submit=${(event: Event) => {
          event.preventDefault();
          void context.actions.submit();
        }}
      >
        ${this.renderFields(context)} ${renderFormEnd(context, label)}
      </form>
    `;
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const submits = this.context?.state.submitCount;
    if (submits === undefined) return;
    // Focus moves after this update: moving it may change the checkout's state, which updates this part again.
    if (this.#seenSubmits !== undefined && submits !== this.#seenSubmits) void this.updateComplete.then(() => this.focusFirstInvalid());
    this.#seenSubmits = submits;
  }

  override focusStart(): void {
    this.renderRoot.querySelector<HTMLElement>('input, select')?.focus();
  }
}
