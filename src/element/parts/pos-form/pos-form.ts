import { html, type TemplateResult } from 'lit';
import { POS_FIELDS } from '../../../checkout/pos-fields.js';
import type { CheckoutContext } from '../../state.js';
import { definePart, renderTextField } from '../checkout-part.js';
import { PaymentForm } from '../payment-form.js';

/** POS terminal: the serial number of the terminal the payer stands at. */
export class SvcPosForm extends PaymentForm {
  protected renderFields(context: CheckoutContext): TemplateResult {
    const [sn] = POS_FIELDS;
    // The shop named the terminal (the cashier's): the payer is not asked for it.
    const terminal = context.state.terminal;
    if (terminal) return html`<p class="terminal">${context.localize.term.label.sn}: <span class="mono" dir="ltr">${terminal}</span></p>`;
    return renderTextField({ context, spec: sn! });
  }
}

definePart('svc-pos-form', SvcPosForm);
