import { css, html, nothing, type TemplateResult } from 'lit';
import type { NotifyMethod } from '../../../core/index.js';
import { METHOD_FIELDS, NOTIFY_LANGUAGE_CHOICES, NOTIFY_METHOD_CHOICES } from '../../../checkout/fields.js';
import enReferenceCode from '../../i18n/en-reference-code.js';
import type { CheckoutContext } from '../../state.js';
import { CheckoutPart, renderTextField } from '../checkout-part.js';
import { renderSelectField } from '../select-field.js';
import type { FormChunk } from '../forms.js';
import { PaymentForm } from '../payment-form.js';

/**
 * Reference code: who to notify and how. Email is asked for when the code goes by email, the mobile number
 * when it goes by SMS, both for both.
 */
export class SvcReferenceCodeForm extends PaymentForm {
  static override styles = [
    ...CheckoutPart.styles,
    css`
      .channels {
        display: flex;
        flex-wrap: wrap;
        gap: calc(var(--_space) / 2) var(--_space);
      }
      .channels label {
        display: inline-flex;
        align-items: center;
        gap: 0.4em;
        font-weight: 400;
        min-block-size: 2.75em;
      }
      .channels input {
        inline-size: 1.2em;
        block-size: 1.2em;
        min-block-size: 0;
        accent-color: var(--_primary);
      }
    `,
  ];

  protected renderFields(context: CheckoutContext): TemplateResult {
    const [name, , email, mobile] = METHOD_FIELDS.ReferenceCode;
    const { state, actions, localize } = context;
    const t = localize.term;
    const method = (state.values.ReferenceCode.notifyMethod ?? 'BOTH') as NotifyMethod;
    const wantsEmail = method === 'BOTH' || method === 'EMAIL';
    const wantsMobile = method === 'BOTH' || method === 'SMS';
    return html`
      ${renderTextField({ context, spec: name! })}
      <fieldset>
        <legend>${t.label.notifyMethod}</legend>
        <div class="channels">
          ${NOTIFY_METHOD_CHOICES.map(
            (choice) => html`
              <label>
                <input
                  type="radio"
                  name="notifyMethod"
                  value=${choice}
                  .checked=${method === choice}
                  @change=${() => actions.input('notifyMethod', choice)}
                />
                ${t.notifyMethodOption[choice]}
              </label>
            `,
          )}
        </div>
      </fieldset>
      ${wantsEmail ? renderTextField({ context, spec: email! }) : nothing}
      ${wantsMobile ? renderTextField({ context, spec: mobile! }) : nothing}
      ${renderSelectField(
        context,
        'notifyLanguage',
        NOTIFY_LANGUAGE_CHOICES.map((language) => ({
          value: language,
          label: t.notifyLanguageOption[language],
          lang: language === 'Arabic' ? 'ar' : 'en',
        })),
      )}
    `;
  }
}

/** What the element registers once this chunk has come (parts/forms.ts): the form and its English words. */
export const form: FormChunk = { tagName: 'svc-reference-code-form', element: SvcReferenceCodeForm, englishTerms: enReferenceCode };
