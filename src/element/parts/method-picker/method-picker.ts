import { css, html, svg } from 'lit';
import type { PayMethod } from '../../../core/index.js';
import type { CheckoutContext } from '../../state.js';
import { CheckoutPart, definePart } from '../checkout-part.js';

/**
 * The choice of payment method: a native radio group, so arrow keys move between methods. A single offered
 * method keeps its title and explanation, without a choice to make.
 */
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
      .choice > span,
      .single {
        display: grid;
        grid-template-columns: 1fr auto;
        column-gap: 0.75em;
        row-gap: 0.15em;
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
      .single {
        padding-inline-start: 1em;
        padding-block: 0.75em;
      }
      .choice input:checked + span {
        border: 2px solid var(--_primary);
        padding: calc(0.75em - 1px) calc(1em - 1px);
        padding-inline-start: calc(2.75em - 1px);
        background: color-mix(in srgb, var(--_primary) 8%, var(--_background));
      }
      .choice input:checked + span .icon {
        color: var(--_primary);
      }
      .icon {
        grid-column: 2;
        grid-row: 1 / span 2;
        align-self: center;
        inline-size: 1.5em;
        block-size: 1.5em;
        color: var(--_muted);
      }
      .choice input:checked + span::before {
        border-color: var(--_primary);
        background: radial-gradient(circle, var(--_primary) 45%, var(--_background) 50%);
      }
      .name {
        font-weight: 600;
        grid-column: 1;
      }
      .description {
        grid-column: 1;
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

  protected override renderPart(context: CheckoutContext) {
    const { state, actions, localize } = context;
    const t = localize.term;
    if (state.methods.length === 1) {
      const [method] = state.methods as [PayMethod];
      return html`
        <div class="single" part="method">
          <span class="name">${t.method[method]}</span>
          <span class="description">${t.methodHint[method]}</span>
          ${methodIcon(method)}
        </div>
      `;
    }
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
                ${methodIcon(method)}
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

/** Inline marks for the methods: a terminal, a bank, a code slip (never emoji, the same on every platform). */
function methodIcon(method: PayMethod) {
  const paths = {
    Pos: svg`<rect x="6" y="2.5" width="12" height="19" rx="2" /><rect x="8.5" y="5" width="7" height="4" rx="0.5" /><path d="M9 13h.01M12 13h.01M15 13h.01M9 16h.01M12 16h.01M15 16h.01" />`,
    BankAccount: svg`<path d="M3 9.5L12 4l9 5.5M5 10v8M9.5 10v8M14.5 10v8M19 10v8M3 20.5h18" />`,
    ReferenceCode: svg`<path d="M6 3h12v18l-2-1.5-2 1.5-2-1.5-2 1.5-2-1.5L6 21z" /><path d="M9 8h6M9 12h6M9 16h3" />`,
  };
  return html`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor"
    stroke-width="1.75" stroke-linecap="round" stroke-linejoin="round">${paths[method]}</svg>`;
}

definePart('svc-method-picker', SvcMethodPicker);
