/**
 * What every part of `<svc-checkout>` shares: the checkout context (state, actions, terms), the shared
 * styles, guarded registration, and where focus goes when the part appears.
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { CheckoutContext } from '../state.js';
import type { FieldSpec } from '../../checkout/fields.js';
import { partStyles } from './shared.styles.js';

export abstract class CheckoutPart extends LitElement {
  static override styles = [partStyles];
  #context: CheckoutContext | undefined;

  constructor() {
    super();
    // Set before this element was defined (the element renders a part whose chunk is still on its way): an own
    // property then, taken over here. Lit would set a declared property's early value again at the first update,
    // over a newer context the element may have given in between.
    const early = this.context;
    delete (this as { context?: unknown }).context;
    this.context = early;
  }

  /**
   * The checkout's state, actions and terms, set by the part that renders this one (`.context=${…}`): a new
   * object at every update of the element, so each part renders what the element does.
   */
  get context(): CheckoutContext | undefined {
    return this.#context;
  }

  set context(context: CheckoutContext | undefined) {
    const old = this.#context;
    this.#context = context;
    this.requestUpdate('context', old);
  }

  /** Renders the part once the element has given it the context (a part is never rendered without one). */
  protected override render(): unknown {
    const context = this.context;
    return context ? this.renderPart(context) : nothing;
  }

  protected abstract renderPart(context: CheckoutContext): unknown;

  #seenSubmits: number | undefined;

  /** After each submit the checkout counts, focus goes to the first invalid field of this part, if any. */
  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    const submits = this.context?.state.submitCount;
    if (submits === undefined) return;
    // After this update: moving focus may change the checkout's state, which updates this part again.
    if (this.#seenSubmits !== undefined && submits !== this.#seenSubmits) void this.updateComplete.then(() => this.focusFirstInvalid());
    this.#seenSubmits = submits;
  }

  /** Focuses where the payer should start in this part: `[data-focus-start]`, else the first heading. */
  focusStart(): void {
    const target = this.renderRoot.querySelector<HTMLElement>('[data-focus-start]') ?? this.renderRoot.querySelector<HTMLElement>('h2');
    target?.focus();
  }

  /** Focuses the first input whose value is invalid; true when there was one. */
  focusFirstInvalid(): boolean {
    const invalid = this.renderRoot.querySelector<HTMLElement>('[aria-invalid="true"]');
    invalid?.focus();
    return invalid !== null;
  }
}

/** Registers a part once, even when a page loads two copies of the element. */
export function definePart(name: string, constructor: CustomElementConstructor): void {
  if (!customElements.get(name)) customElements.define(name, constructor);
}

export interface FieldOptions {
  context: CheckoutContext;
  spec: FieldSpec;
  /** Overrides the label from the catalog. */
  label?: string;
  /** For the code step: the field's value lives in the part, not in the checkout state. */
  value?: string;
  onInput?: (value: string) => void;
  required?: boolean;
  focusStart?: boolean;
}

/**
 * A labelled input with its hint and error, tied together with aria-describedby and aria-invalid. Its value is a
 * plain property binding, without Lit's `live`: every change the payer makes goes through the state (input, then
 * the same value back), so the state never differs from the input where Lit compares them, and writing an input's
 * own value back leaves the caret where it was (test/browser/pos.test.ts). The other forms bind theirs the same way.
 */
export function renderTextField(options: FieldOptions): TemplateResult {
  const { context, spec } = options;
  const { state, actions, localize } = context;
  const t = localize.term;
  const name = spec.name;
  const error = state.errors[name];
  const hint = spec.hint ? t.hint[spec.hint] : undefined;
  const value = options.value ?? state.values[state.method][name] ?? '';
  const describedBy = [hint ? `${name}-hint` : '', error ? `${name}-error` : ''].filter(Boolean).join(' ');
  return html`
    <div class="field" part="field">
      <label part="label" for=${name}>${options.label ?? t.label[name]}</label>
      ${hint ? html`<p class="hint" part="hint" id="${name}-hint">${hint}</p>` : nothing}
      <input
        part="input"
        id=${name}
        name=${name}
        type=${spec.type ?? 'text'}
        inputmode=${ifDefined(spec.inputmode)}
        autocomplete=${spec.autocomplete}
        maxlength=${ifDefined(spec.maxlength)}
        dir=${spec.digits || spec.type === 'email' || spec.type === 'tel' ? 'ltr' : 'auto'}
        ?required=${options.required ?? true}
        aria-invalid=${error ? 'true' : 'false'}
        aria-describedby=${ifDefined(describedBy || undefined)}
        ?data-focus-start=${options.focusStart ?? false}
        spellcheck="false"
        .value=${value}
        @input=${(event: Event) => {
          const input = (event.target as HTMLInputElement).value;
          if (options.onInput) options.onInput(input);
          else actions.input(name, input);
        }}
        @blur=${() => actions.blur(name)}
      />
      ${error ? html`<p class="field-error" part="error" id="${name}-error"><span class="visually-hidden">${t.errorPrefix}</span>${error}</p>` : nothing}
    </div>
  `;
}

/** The form-level alert and the submit button every payment form ends with. */
export function renderFormEnd(context: CheckoutContext, label: string): TemplateResult {
  const { state, localize } = context;
  return html`
    ${context.renderAlert?.(state.alert, { urgent: true }) ?? nothing}
    <button class="primary" part="button" type="submit" aria-disabled=${state.busy ? 'true' : 'false'} aria-busy=${state.busy ? 'true' : 'false'}>
      ${state.busy ? localize.term.processing : label}
    </button>
  `;
}
