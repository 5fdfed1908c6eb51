import type { TemplateResult } from 'lit';
import { METHOD_FIELDS } from '../../../checkout/fields.js';
import type { CheckoutContext } from '../../state.js';
import { definePart, renderTextField } from '../checkout-part.js';
import { PaymentForm } from '../payment-form.js';

/** POS terminal: the serial number of the terminal the payer stands at. */
export class SvcPosForm extends PaymentForm {
  protected renderFields(context: CheckoutContext): TemplateResult {
    const [sn] = METHOD_FIELDS.Pos;
    return renderTextField({ context, spec: sn! });
  }
}

definePart('svc-pos-form', SvcPosForm);
