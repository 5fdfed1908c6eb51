import { html, LitElement, nothing, type PropertyDeclaration, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import type { CheckoutSettings } from '../checkout/index.js';
import type { PayParams, UserInfo } from '../core/index.js';
import { ATTRIBUTES, attributeOf, carriesPrivateKey, withoutPrivateKey } from '../checkout/config.js';
import { readTokenPayload } from '../core/token-wire.js';
import { CheckoutController } from './controllers/checkout.js';
import { LocalizeController } from './controllers/localize.js';
import type { PartialTranslation } from './i18n/translation.js';
import type { CheckoutContext, CheckoutState as CheckoutViewState } from './state.js';
import { styles } from './svc-checkout.styles.js';

/** `sandbox` is true, false, or unset (then `SvcCheckout.isSandBox` decides); so is `isolated` (unset: on). */
const optionalBoolean = {
  fromAttribute: (value: string | null) => (value === null ? undefined : value !== 'false'),
  toAttribute: (value: boolean | undefined) => (value === undefined ? null : String(value)),
};

/** Lit's declaration of each row of the attribute table (src/checkout/config.ts). */
function declarationOf(row: (typeof ATTRIBUTES)[number]): PropertyDeclaration {
  if (row.property === 'sandbox' || row.property === 'isolated') return { attribute: attributeOf(row.property), converter: optionalBoolean };
  const type = { string: String, number: Number, boolean: Boolean }[row.type];
  return { type, attribute: attributeOf(row.property), reflect: row.property === 'theme' };
}

/**
 * The parts a payment method's form exports to the page (`svc-checkout::part(…)`), an alert's tone with it, as every
 * element holding an alert does (a step's, the result's, the offer's). Each part is an `@csspart` line below;
 * test/browser/theming.test.ts styles each from outside, and fails on one that is not documented or not reached.
 */
const FORM_PARTS = 'form, field, label, input, hint, error, alert, alert-error, alert-warning, alert-info, button';

/** The properties the session is configured from: the attributes of the order and of the session, and two objects. */
const SETTINGS = [...ATTRIBUTES.filter((row) => row.role !== 'view').map((row) => row.property), 'payParams', 'userInfo'];

/**
 * @summary Takes a payment through the payment collection service: POS terminal, bank account or reference
 * code. Talks only to the merchant's own endpoint, follows the next action, polls the order's status and
 * reports it in events that mirror the service's mobile SDK.
 *
 * @event svc-http-response - The create call's envelope (the SDK's `httpCallback`). `detail`: `{code, message, data}`.
 * @event svc-pay-result - Each status change seen (the SDK's `webPayCallback`). `detail`: `{callbackName, eventName, merchantId, orderNo, orderStatus, payNo, referenceCode}`.
 * @event svc-action - A next action is shown. `detail`: `{actionType, orderNo, reference, redirectUrl?, referenceCode?}`.
 * @event svc-expired - The order expired unpaid. `detail`: `{orderNo, reference}`.
 * @event svc-error - An error the payer sees. `detail`: `{code, message, retryable}`.
 * @event svc-ready - The element is configured and shown. `detail`: `{methods, resumed}`.
 * @event svc-change - The payer chose a method or changed a field. `detail`: `{payMethod, complete}`.
 * @event svc-timing - A timing of the payer's way through the checkout: `first-frame`, `first-interaction` (ms since the page began to load), `step` (ms on a step), `stop` (the page went away, the checkout unfinished). `detail`: `{kind, ms, step?, action?, method?}`.
 * @event svc-before-redirect - The payer is about to leave for 3-D Secure. Cancelable; `detail.waitUntil(promise)` holds the redirect until the promise settles (a rejection stays, as does `preventDefault()`). `detail`: `{orderNo, reference, redirectUrl, waitUntil}`.
 *
 * @slot header - Replaces the order summary at the top.
 * @slot footer - Content under the payment steps, e.g. terms or a support link.
 * @slot result - Shown under the result only, e.g. the shop's "Continue to your order" link.
 *
 * @csspart base - The element's outer box.
 * @csspart header - The order summary.
 * @csspart badge - The "Test mode" badge.
 * @csspart amount - The amount to pay.
 * @csspart reference - The order's reference under the product (`Order …`).
 * @csspart methods - The choice of payment method.
 * @csspart method - One payment method option.
 * @csspart form - A form of the payer's details or of a code.
 * @csspart field - A label, its input, hint and error.
 * @csspart label - A field's label.
 * @csspart input - A text input or select.
 * @csspart hint - A field's hint.
 * @csspart error - A field's error message.
 * @csspart alert - A message about the whole step.
 * @csspart alert-error - An alert that says what went wrong (with its icon).
 * @csspart alert-warning - An alert that warns (with its icon).
 * @csspart alert-info - An alert that informs (with its icon).
 * @csspart button - The main button of a step.
 * @csspart button-secondary - Secondary buttons (resend, copy, start again).
 * @csspart button-copy - "Copy" of a reference code, or of the order number on the receipt.
 * @csspart button-print - "Print" of a reference code's voucher.
 * @csspart button-share - "Share" of a reference code's voucher.
 * @csspart step - The box of a next action (terminal, code, bank page, reference code).
 * @csspart heading - A step's heading.
 * @csspart code - The reference code.
 * @csspart deadline - When a reference code is to be paid by.
 * @csspart where - Where and how a reference code is paid (the `where-to-pay` words) on the voucher.
 * @csspart pay-on-phone - "Pay on your phone" under the form: the QR code and the link of this checkout.
 * @csspart qr - The QR code of "Pay on your phone".
 * @csspart countdown - The time left to pay.
 * @csspart status - The live status line.
 * @csspart spinner - The waiting indicator.
 * @csspart result - The outcome.
 *
 * @cssproperty --svc-color-primary - Buttons, focus and selection. Default #0b57d0 (light), #a8c7fa (dark).
 * @cssproperty --svc-color-on-primary - Text on primary. Default #ffffff (light), #062e6f (dark).
 * @cssproperty --svc-color-text - Text. Default #1b1b1f / #e4e2e6.
 * @cssproperty --svc-color-muted - Hints and secondary text. Default #4f5158 / #c4c6cf.
 * @cssproperty --svc-color-background - The element's background. Default #ffffff / #1b1b1f.
 * @cssproperty --svc-color-surface - Boxes inside the element. Default #f3f4f8 / #2a2a30.
 * @cssproperty --svc-color-border - Input and box borders. Default #74777f / #8e9099.
 * @cssproperty --svc-color-danger - Errors. Default #b3261e / #ffb4ab.
 * @cssproperty --svc-color-success - Success. Default #146c2e / #7fd88f.
 * @cssproperty --svc-color-warning - The test mode badge. Default #7a4a00 / #ffb95c.
 * @cssproperty --svc-color-focus - Focus rings. Default: the primary colour.
 * @cssproperty --svc-radius - Corner radius. Default 8px.
 * @cssproperty --svc-spacing - The base spacing unit. Default 1em (of the element's font size).
 * @cssproperty --svc-font-family - Default: inherited.
 * @cssproperty --svc-font-size - Default medium: the payer's browser font size, whatever the page's root font size.
 */
export class SvcCheckout extends LitElement {
  /** The default of every element's `sandbox`, as `Svc.isSandBox` in the SDK. */
  static isSandBox = false;
  /**
   * The default of every element's `endpoint`: the folder the CDN entry was served from, when that is on the page's
   * own origin (the merchant kit serves it under its base path). Set by cdn.ts; the npm build has none.
   * @internal
   */
  declare static defaultEndpoint: string | undefined;

  static override shadowRootOptions: ShadowRootInit = { ...LitElement.shadowRootOptions, delegatesFocus: true };
  static override styles = styles;

  static override properties: PropertyDeclarations = {
    ...Object.fromEntries(ATTRIBUTES.map((row) => [row.property, declarationOf(row)])),
    payParams: { attribute: false },
    userInfo: { attribute: false },
    strings: { attribute: false },
    privateKey: { type: String, attribute: 'private-key' },
  };

  /** URL prefix of the merchant endpoint (the merchant kit's handler). */
  declare endpoint: string | undefined;
  /**
   * The checkout token your server issued for this order (`issueCheckoutToken` of `svc-checkout/server`). It
   * fixes the merchant, reference, amount, currency, country, product, methods and expiry: attributes for
   * those are ignored when it is set.
   */
  declare checkoutToken: string | undefined;
  /** Your merchant id: in events, and to keep one order per page in session storage. */
  declare merchantId: string | undefined;
  /** Name shown in the order summary and sent with reference code orders. */
  declare merchantName: string | undefined;
  /** The merchant's reference of this order. A retry adds `--2`, `--3`, … */
  declare reference: string | undefined;
  /** Two uppercase letters, e.g. `EG`. */
  declare countryCode: string | undefined;
  /** Three uppercase letters, e.g. `EGP`. */
  declare currency: string | undefined;
  /** The amount in minor units (piastres, cents). */
  declare payAmount: number | undefined;
  /** The product's name, shown in the order summary and sent with the order. */
  declare productName: string | undefined;
  /** The product's description, sent with the order; required for reference codes. */
  declare productDescription: string | undefined;
  /** Ignored by the merchant kit, which takes the callback address from the checkout token or its own option. */
  declare callbackUrl: string | undefined;
  /** Minutes before the order expires. Default 30. */
  declare expireAt: number | undefined;
  /** The one method to offer; unset offers every method in `methods`. */
  declare payMethod: string | undefined;
  /** The methods to offer, comma or space separated. Default `Pos BankAccount ReferenceCode`. */
  declare methods: string | undefined;
  /** Shows the "Test mode" badge. Unset: `SvcCheckout.isSandBox`. */
  declare sandbox: boolean | undefined;
  /** Where the bank sends the payer back after 3-D Secure. Default: this page. */
  declare returnUrl: string | undefined;
  /** Shows only the live status of the checkout token's order (a thank-you page, another tab): never a form. */
  declare statusOnly: boolean | undefined;
  /** The POS terminal's serial number, when the shop knows it (the cashier's terminal): the payer is not asked. */
  declare terminal: string | undefined;
  /** `same-window` (default) leaves for the bank's page and comes back; `new-window` opens it beside this one. */
  declare redirectMode: string | undefined;
  /** Base interval of status polling in milliseconds. Default 2500: every 2.5 s for a minute, then backing off to once a minute. */
  declare pollInterval: number | undefined;
  /** `credentials` of the calls to the endpoint. Default `same-origin`. */
  declare credentials: RequestCredentials | undefined;
  /** The language; default the nearest `lang`, then the document's. */
  declare locale: string | undefined;
  /** `light`, `dark`, or unset to follow `prefers-color-scheme`. */
  declare theme: string | undefined;
  /**
   * Sends the checkout's timings (`svc-timing`) as beacons to `endpoint` + `/timings` (the merchant kit, which
   * publishes them on `svc-checkout:timing`), and nowhere else. Default false: the page alone hears them.
   */
  declare sendTimings: boolean | undefined;
  /**
   * The bank account details, the one-time code and the PIN are typed in a frame the page's scripts cannot read
   * (docs/isolated-fields.md), unless `false`: then in the element, in the page.
   */
  declare isolated: boolean | undefined;
  /** The SDK's PayParams, whole. Attributes that are set win over its fields. */
  declare payParams: Partial<PayParams> | undefined;
  /** The payer's details, to fill in what the service asks for. */
  declare userInfo: UserInfo | undefined;
  /** This element's own wording, over the catalog's. */
  declare strings: Omit<PartialTranslation, '$code'> | undefined;
  /**
   * Never used: present only so that setting it is refused loudly.
   * @internal
   */
  declare privateKey: string | undefined;

  readonly #localize = new LocalizeController(this);
  /** The session and the chunks it comes in, and what the payer did before it came. */
  readonly #checkout = new CheckoutController(this, this.#localize);
  #refused: string | undefined;
  #view: CheckoutViewState | undefined;
  /** What the session is configured with: the same object until a setting changes. */
  #settings: CheckoutSettings | undefined;
  /** What the parts render: set as their `context` property at each update. */
  #context!: CheckoutContext;

  /** Complete once the session has taken over: what a page reads then is what the payer can use. */
  protected override async getUpdateComplete(): Promise<boolean> {
    await this.#checkout.start();
    await this.#localize.loading;
    return super.getUpdateComplete();
  }

  /** Nothing is painted in a language whose words are still on their way (never English first, then Arabic). */
  protected override shouldUpdate(changed: PropertyValues<this>): boolean {
    const loading = this.#localize.loading;
    if (!loading) return super.shouldUpdate(changed);
    // Lit forgets what changed once an update is skipped: asked again, with the same names and old values.
    const held = [...changed];
    void loading.then((lost) => {
      if (lost) this.#checkout.wordsLost(lost);
      for (const [name, old] of held) this.requestUpdate(name as keyof this, old);
      this.requestUpdate();
    });
    return false;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Public API

  /**
   * The headless session behind this element: its state, commands and events (`svc-checkout/checkout`). It
   * loads after the first frame: undefined until then, always there once `updateComplete` resolves.
   */
  get session(): CheckoutController['session'] {
    return this.#checkout.session;
  }

  /** Sends the form of the selected method. A second call while one is in flight returns the same promise. */
  submit(): Promise<void> {
    return this.#checkout.submit();
  }

  /**
   * Leaves the current order (it is not cancelled) for a new attempt with a new reference, and shows the form.
   * Does nothing while a create, or the search for its lost answer, is under way.
   */
  reset(): void {
    this.#checkout.session?.leave();
  }

  /** Asks the merchant endpoint for the order's status now (sharing the poll's request). Resolves to the envelope. */
  async getCashierStatus(): ReturnType<NonNullable<CheckoutController['session']>['checkNow']> {
    return (await this.#checkout.configured()).checkNow();
  }

  // ---------------------------------------------------------------------------------------------------------
  // Lifecycle

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('privateKey') && this.privateKey !== undefined) {
      this.privateKey = undefined;
      // Not even left in the DOM, where other scripts on the page could read it.
      this.removeAttribute('private-key');
      // The session stops the checkout and says why (REFUSED_SETTINGS): in svc-error, and in the console.
      this.#refused = 'private-key';
    }
    if (changed.has('payParams') && carriesPrivateKey(this.payParams)) {
      this.payParams = withoutPrivateKey(this.payParams as Record<string, unknown>) as Partial<PayParams>;
      this.#refused = 'private-key';
    }
    const language = this.#localize.term.$code.startsWith('ar') ? 'Arabic' : 'English';
    // Settings built anew only when one of them changed (or the language, which is the localize controller's).
    if (language !== this.#settings?.language || this.#refused !== this.#settings.refused || SETTINGS.some((name) => changed.has(name as 'payParams'))) {
      this.#settings = {
        ...(Object.fromEntries(SETTINGS.map((name) => [name, this[name as 'payParams']])) as CheckoutSettings),
        // `redirectMode` as written: the state reads anything but `new-window` as the same window (formStateOf).
        endpoint: this.endpoint || SvcCheckout.defaultEndpoint,
        language,
        refused: this.#refused,
      };
    }
    this.#checkout.configure(this.#settings);
    this.#applyDirection();
    const view = (this.#view = this.#checkout.view());
    if (view?.step.kind === 'form') this.#checkout.showing(view.method);
    this.#context = { state: view as CheckoutViewState, actions: this.#checkout.actions, localize: this.#localize, renderAlert: this.#checkout.engine?.renderAlert, session: this.session };
  }

  protected override firstUpdated(changed: PropertyValues<this>): void {
    super.firstUpdated(changed);
    this.#checkout.fetchAfterPaint();
  }

  // ---------------------------------------------------------------------------------------------------------
  // Rendering

  protected override render(): TemplateResult {
    const t = this.#localize.term;
    const state = this.#view;
    // A token the kit issued against the sandbox says so: the badge needs no attribute.
    const sandbox = this.sandbox ?? (SvcCheckout.isSandBox || (readTokenPayload(this.checkoutToken, 'checkout') as { short?: { sb?: true } }).short?.sb === true);
    const unloaded = this.#checkout.unloaded(state?.step.kind === 'form' ? state.method : undefined);
    return html`
      <div part="base" class="base" lang=${t.$code} dir=${this.#localize.dir}>
        <slot name="header">
          <div part="header" class="header">
            <div class="merchant">
              <span class="merchant-name">${state?.merchantName}</span>
              ${sandbox ? html`<span part="badge" class="badge" title=${t.testModeHint}>${t.testMode}</span>` : nothing}
            </div>
            ${state?.amount
              ? html`<p part="amount" class="amount">
                  <span class="amount-label">${t.total}</span>
                  <span class="amount-value">${this.#localize.money(state.amount.total, state.amount.currency)}</span>
                </p>`
              : nothing}
            ${state?.productName ? html`<p class="product">${state.productName}</p>` : nothing}
            ${state?.reference ? html`<p part="reference" class="product">${t.orderReference} <span dir="ltr">${state.reference}</span></p>` : nothing}
          </div>
        </slot>
        <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">${this.#checkout.announcement}</div>
        <div class="body" aria-busy=${state || unloaded ? 'false' : 'true'}>
          ${unloaded ? html`<p class="alert" part="alert alert-error" role="alert">${t.unloaded}</p>` : nothing}
          ${state ? this.#renderStep(state, sandbox) : nothing}
        </div>
        <slot name="footer"></slot>
      </div>
    `;
  }

  #renderStep(state: CheckoutViewState, sandbox: boolean): TemplateResult {
    if (state.step.kind !== 'form') return this.#checkout.engine!.renderStep(state.step, this.#context, sandbox);
    return html`
      <svc-method-picker exportparts="methods, method" .context=${this.#context}></svc-method-picker>
      ${{
        Pos: html`<svc-pos-form exportparts=${FORM_PARTS} .context=${this.#context}></svc-pos-form>`,
        BankAccount: html`<svc-bank-account-form exportparts=${FORM_PARTS} .context=${this.#context}></svc-bank-account-form>`,
        ReferenceCode: html`<svc-reference-code-form exportparts=${FORM_PARTS} .context=${this.#context}></svc-reference-code-form>`,
      }[state.method]}
      <svc-pay-elsewhere .context=${this.#context}></svc-pay-elsewhere>
    `;
  }

  #applyDirection(): void {
    // Mirrors `:host(:dir(rtl))` styles: the element's direction follows its language unless the page set one.
    const dir = this.#localize.dir;
    if (!this.hasAttribute('dir') || this.dataset['svcDir'] === 'auto') {
      this.dataset['svcDir'] = 'auto';
      if (this.getAttribute('dir') !== dir) this.setAttribute('dir', dir);
    }
  }
}
