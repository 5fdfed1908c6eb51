// Apart from the text field (checkout-part.ts): only the reference code form, a chunk of its own, asks with a select.
import { html, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { FieldName } from '../../checkout/fields.js';
import type { CheckoutContext } from '../state.js';

/** A labelled select of fixed choices. */
export function renderSelectField(
  context: CheckoutContext,
  name: FieldName,
  choices: readonly { value: string; label: string; lang?: string }[],
): TemplateResult {
  const { state, actions, localize } = context;
  const value = state.values[state.method][name] ?? choices[0]?.value ?? '';
  return html`
    <div class="field" part="field">
      <label part="label" for=${name}>${localize.term.label[name]}</label>
      <select
        part="input"
        id=${name}
        name=${name}
        .value=${value}
        @change=${(event: Event) => actions.input(name, (event.target as HTMLSelectElement).value)}
      >
        ${choices.map(
          (choice) =>
            html`<option value=${choice.value} lang=${ifDefined(choice.lang)} ?selected=${choice.value === value}>${choice.label}</option>`,
        )}
      </select>
    </div>
  `;
}
