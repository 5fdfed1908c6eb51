import { css, html, nothing, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { fieldsOf, type FieldSpec } from '../../../checkout/fields.js';
import type { FrameErrors } from '../../../isolated-fields/protocol.js';
import { IsolatedFrameController } from '../../controllers/isolated-frame.js';
import enBankAccount from '../../i18n/en-bank-account.js';
import type { CheckoutContext } from '../../state.js';
import { CheckoutPart, renderTextField } from '../checkout-part.js';
import { PaymentForm, type FormChunk } from '../payment-form.js';

/**
 * Bank account: account number, bank code and the account holder's date of birth (three fields in one
 * group, as the service takes them). The return address for 3-D Secure comes from the configuration.
 */
export class SvcBankAccountForm extends PaymentForm {
  static override styles = [
    ...CheckoutPart.styles,
    css`
      .date {
        display: grid;
        grid-template-columns: 4.5em 4.5em 6.5em;
        gap: calc(var(--_space) / 2);
      }
      .date .field {
        gap: 0.15em;
      }
      .date label {
        font-weight: 400;
      }
    `,
  ];

  /** The fields' frame, where the page cannot read them: unless the element says `isolated="false"`. */
  readonly #isolated = new IsolatedFrameController(this, 'BankAccount', {
    errors: (context) => {
      const texts: FrameErrors['texts'] = { dateOfBirth: context.state.errors.dateOfBirth };
      for (const spec of fieldsOf('BankAccount').filter((field) => !field.control)) texts[spec.name] = context.state.errors[spec.name];
      return texts;
    },
    submit: (context) => void context.actions.submit(),
  });

  protected renderFields(context: CheckoutContext): TemplateResult {
    const frame = this.#isolated.element;
    if (frame) return html`${frame}`;
    const fields = fieldsOf('BankAccount');
    const dateParts = fields.filter((spec) => spec.control === 'date-part');
    const t = context.localize.term;
    const dateError = context.state.errors.dateOfBirth;
    return html`
      ${fields.filter((spec) => !spec.control).map((spec) => renderTextField({ context, spec }))}
      <fieldset aria-describedby="dob-hint">
        <legend>${t.label.dateOfBirth}</legend>
        <p class="hint" part="hint" id="dob-hint">${t.hint.dateOfBirth}</p>
        <div class="date">${dateParts.map((spec) => this.#datePart(context, spec))}</div>
        ${dateError
          ? html`<p class="field-error" part="error" id="dob-error"><span class="visually-hidden">${t.errorPrefix}</span>${dateError}</p>`
          : nothing}
      </fieldset>
    `;
  }

  override focusStart(): void {
    if (!this.#isolated.focus('first')) super.focusStart();
  }

  override focusFirstInvalid(): boolean {
    return this.#isolated.focus('first-invalid') || super.focusFirstInvalid();
  }

  #datePart(context: CheckoutContext, spec: FieldSpec): TemplateResult {
    const { state, actions, localize } = context;
    const error = state.errors[spec.name];
    return html`
      <div class="field" part="field">
        <label part="label" for=${spec.name}>${localize.term.label[spec.name]}</label>
        <input
          part="input"
          id=${spec.name}
          name=${spec.name}
          inputmode=${ifDefined(spec.inputmode)}
          autocomplete=${spec.autocomplete}
          maxlength=${ifDefined(spec.maxlength)}
          placeholder=${localize.term.datePlaceholder[spec.name === 'dobDay' ? 'day' : spec.name === 'dobMonth' ? 'month' : 'year']}
          dir="ltr"
          required
          aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${error ? 'dob-hint dob-error' : 'dob-hint'}
          .value=${state.values.BankAccount[spec.name] ?? ''}
          @input=${(event: Event) => actions.input(spec.name, (event.target as HTMLInputElement).value)}
          @blur=${() => actions.blur(spec.name)}
        />
      </div>
    `;
  }
}

/** What the element registers once this chunk has come (parts/forms.ts): the form and its English words. */
export const form: FormChunk = { tagName: 'svc-bank-account-form', element: SvcBankAccountForm, englishTerms: enBankAccount };
