import { css, html, nothing, type TemplateResult } from 'lit';
import type { NotifyLanguage, NotifyMethod } from '../../../core/index.js';
import { contactOnFile } from '../../../core/contact-claims.js';
import { fieldsOf, isAsked, prefilled, type FieldSpec } from '../../../checkout/fields.js';
import { shownConfigOf } from '../../../checkout/first-frame.js';
import enReferenceCode from '../../i18n/en-reference-code.js';
import type { CheckoutContext } from '../../state.js';
import { CheckoutPart, renderTextField } from '../checkout-part.js';
import { renderSelectField } from '../select-field.js';
import { PaymentForm, type FormChunk } from '../payment-form.js';

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
    const values = context.state.values.ReferenceCode;
    // What the shop has on file of the payer's contact (a payment link's, sealed in the checkout token): those fields may
    // be left empty, and the form says where the code goes then, while the payer typed none of the contact (whole or
    // not at all: once they type any, each field the channel needs is asked). The values never reach the page.
    const asked = fieldsOf('ReferenceCode').filter((spec) => isAsked(spec, values));
    const onFile = contactOnFile(context.session?.config?.checkoutToken, Object.fromEntries(asked.map((spec) => [spec.name, values[spec.name]])));
    return html`${asked.map((spec) => this.#field(context, spec, onFile))}`;
  }

  /** Where the code goes when the payer leaves the contact empty: the channel's contact on file, if any. */
  #onFileNote(context: CheckoutContext, onFile: readonly string[]): TemplateResult | typeof nothing {
    const email = onFile.includes('notify.notifyUserEmail');
    const mobile = onFile.includes('notify.notifyUserMobile');
    const channel = (context.state.values.ReferenceCode['notifyMethod'] || 'BOTH') as NotifyMethod;
    const said: NotifyMethod | undefined =
      channel === 'EMAIL' ? (email ? 'EMAIL' : undefined) : channel === 'SMS' ? (mobile ? 'SMS' : undefined) : email && mobile ? 'BOTH' : email ? 'EMAIL' : mobile ? 'SMS' : undefined;
    return said ? html`<p class="hint" part="hint" id="contact-on-file">${context.localize.term.contactOnFile[said]}</p>` : nothing;
  }

  /** A row of the method's fields: a text input, the channel's radios, or the language's list. */
  #field(context: CheckoutContext, spec: FieldSpec, onFile: readonly string[]): TemplateResult {
    const { state, actions, localize } = context;
    const t = localize.term;
    if (spec.control === 'select') {
      return renderSelectField(
        context,
        spec.name,
        (spec.choices ?? []).map((language) => ({
          value: language,
          label: t.notifyLanguageOption[language as NotifyLanguage],
          lang: language === 'Arabic' ? 'ar' : 'en',
        })),
      );
    }
    if (spec.control !== 'choice') return renderTextField({ context, spec, required: !onFile.includes(spec.wire) });
    const chosen = state.values.ReferenceCode[spec.name] ?? spec.choices?.[0];
    return html`
      <fieldset>
        <legend>${t.label[spec.name]}</legend>
        <div class="channels">
          ${(spec.choices ?? []).map(
            (choice) => html`
              <label>
                <input type="radio" name=${spec.name} value=${choice} .checked=${chosen === choice} @change=${() => actions.input(spec.name, choice)} />
                ${t.notifyMethodOption[choice as NotifyMethod]}
              </label>
            `,
          )}
        </div>
      </fieldset>
      ${this.#onFileNote(context, onFile)}
    `;
  }
}

/**
 * What the element registers once this chunk has come (parts/forms.ts): the form, its English words, and what the shop
 * knows of the payer filling it in the first frame, as the session fills it once it comes (fields.ts, `prefilled`).
 */
export const form: FormChunk = {
  tagName: 'svc-reference-code-form',
  element: SvcReferenceCodeForm,
  englishTerms: enReferenceCode,
  prefilled: (state, settings) => prefilled(shownConfigOf(settings).config, settings, state),
};
