import { html, nothing } from 'lit';
import type { CheckoutContext } from '../../state.js';
import { CODE_FIELDS } from '../../../checkout/code-fields.js';
import { IsolatedFrameController } from '../../controllers/isolated-frame.js';
import { ACTION_VIEWS } from '../action-views.js';
import { definePart, renderFormEnd, renderTextField } from '../checkout-part.js';
import { ActionPart, type ActionOrder } from '../step-part.js';
import { renderStatusLine } from '../status-line.js';
import { numberIn } from '../../format.js';

/**
 * INPUT_OTP and INPUT_PIN: a one-time code (offered by the phone's keyboard and autofill through
 * `autocomplete="one-time-code"`) or the account's PIN (masked), with "send the code again" for OTPs.
 */
export class SvcCodeStep extends ActionPart {
  #code = '';
  /** The code's frame, where the page cannot read it: one per kind of code (a step that turns from OTP to PIN gets another). */
  readonly #frames = {
    INPUT_OTP: this.#isolated('INPUT_OTP'),
    INPUT_PIN: this.#isolated('INPUT_PIN'),
  };

  #isolated(kind: 'INPUT_OTP' | 'INPUT_PIN'): IsolatedFrameController {
    const name = CODE_FIELDS[kind].name;
    return new IsolatedFrameController(this, kind, {
      errors: (context) => ({ [name]: context.state.errors[name] }),
      submit: (context) => void context.actions.submitCode(''),
      shown: ({ state: { step } }) => step.kind === 'action' && step.order.actionType === kind,
    });
  }

  protected override renderAction(context: CheckoutContext, order: ActionOrder) {
    const { state, actions, localize } = context;
    const t = localize.term;
    const isPin = order.actionType === 'INPUT_PIN';
    const spec = isPin ? CODE_FIELDS.INPUT_PIN : CODE_FIELDS.INPUT_OTP;
    const frame = this.#frames[isPin ? 'INPUT_PIN' : 'INPUT_OTP'].element;
    return html`
      <section class="step" part="step" aria-labelledby="heading">
        <h2 id="heading" part="heading" tabindex="-1">${ACTION_VIEWS[order.actionType].title(t)}</h2>
        <p>${isPin ? t.pinBody : t.otpBody}</p>
        <form
          part="form"
          novalidate
          @submit=${(event: Event) => {
            event.preventDefault();
            // Sent, the code is not kept: a wrong one is typed again, a right one is done with.
            void actions.submitCode(this.#code).then((sent) => {
              if (!sent) return;
              this.#code = '';
              this.requestUpdate();
            });
          }}
        >
          ${frame ??
          renderTextField({
            context,
            spec,
            value: this.#code,
            focusStart: true,
            onInput: (value) => {
              this.#code = value;
            },
          })}
          ${renderFormEnd(context, t.confirm)}
        </form>
        ${isPin
          ? nothing
          : html`
              <div class="row">
                <button
                  class="secondary"
                  part="button-secondary"
                  type="button"
                  aria-disabled=${state.resendWait > 0 || state.busy ? 'true' : 'false'}
                  @click=${() => actions.resendOtp()}
                >
                  ${state.resendWait > 0 ? t.resendIn(state.resendWait, (n) => numberIn(localize, n)) : t.resend}
                </button>
              </div>
            `}
        ${renderStatusLine(context, { status: false })}
        <svc-leave-order exportparts="button-secondary" .context=${context}></svc-leave-order>
      </section>
    `;
  }

  override focusStart(): void {
    const shown = Object.values(this.#frames).some((frame) => frame.focus('first'));
    if (!shown) super.focusStart();
  }

  override focusFirstInvalid(): boolean {
    return Object.values(this.#frames).some((frame) => frame.focus('first-invalid')) || super.focusFirstInvalid();
  }
}

definePart('svc-code-step', SvcCodeStep);
