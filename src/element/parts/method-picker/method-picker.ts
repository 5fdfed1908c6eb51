import { css, html, nothing } from 'lit';
import { CheckoutPart, definePart } from '../checkout-part.js';

/** The choice of payment method: a native radio group, so arrow keys move between methods. */
export class SvcMethodPicker extends CheckoutPart {
  static override styles = [
    ...CheckoutPart.styles,
    css`
      .methods {
        display: grid;
        gap: calc(var(--_space) / 2);
      }
      .choice {
        display: block;
        position: relative;
      }
      .choice input {
        position: absolute;
        opacity: 0;
        inset-block-start: 0;
        inset-inline-start: 0;
        inline-size: 1px;
        block-size: 1px;
        min-block-size: 0;
      }
      .choice > span {
        display: grid;
        gap: 0.15em;
        padding: 0.75em 1em;
        padding-inline-start: 2.75em;
        border: 1px solid var(--_border);
        border-radius: calc(var(--_radius) / 2);
        cursor: pointer;
        position: relative;
      }
      .choice > span::before {
        content: '';
        position: absolute;
        inset-inline-start: 0.9em;
        inset-block-start: 1em;
        inline-size: 1.1em;
        block-size: 1.1em;
        border-radius: 50%;
        border: 2px solid var(--_border);
        background: var(--_background);
      }
      .choice input:checked + span {
        border: 2px solid var(--_primary);
        padding: calc(0.75em - 1px) calc(1em - 1px);
        padding-inline-start: calc(2.75em - 1px);
      }
      .choice input:checked + span::before {
        border-color: var(--_primary);
        background: radial-gradient(circle, var(--_primary) 45%, var(--_background) 50%);
      }
      .name {
        font-weight: 600;
      }
      .description {
        color: var(--_muted);
        font-size: 0.875em;
        font-weight: 400;
      }
      @media (forced-colors: active) {
        .choice input:checked + span {
          border-color: Highlight;
        }
        .choice input:checked + span::before {
          forced-color-adjust: none;
          border-color: Highlight;
          background: radial-gradient(circle, Highlight 45%, Canvas 50%);
        }
        .choice input:focus-visible + span {
          outline: 3px solid Highlight;
        }
      }
    `,
  ];

  protected override render() {
    const context = this.context;
    if (!context) return nothing;
    const { state, actions, localize } = context;
    const t = localize.term;
    return html`
      <fieldset class="methods" part="methods" ?disabled=${state.busy}>
        <legend>${t.paymentMethod}</legend>
        ${state.methods.map(
          (method) => html`
            <label class="choice" part="method">
              <input
                type="radio"
                name="payMethod"
                value=${method}
                .checked=${state.method === method}
                @change=${() => actions.selectMethod(method)}
              />
              <span>
                <span class="name">${t.method[method]}</span>
                <span class="description">${t.methodHint[method]}</span>
              </span>
            </label>
          `,
        )}
      </fieldset>
    `;
  }

  override focusStart(): void {
    this.renderRoot.querySelector<HTMLInputElement>('input:checked')?.focus();
  }
}

definePart('svc-method-picker', SvcMethodPicker);
