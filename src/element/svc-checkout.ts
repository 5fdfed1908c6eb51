import { ContextProvider } from '@lit/context';
import { html, LitElement, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import {
  attemptReference,
  isCreateOutcomeUnknown,
  isDuplicateReference,
  isErrorCode,
  isHttpUrl,
  isPaymentStatus,
  isRetryable,
  isSuccess,
  isTerminalStatus,
  MERCHANT_PATHS,
  normalizeNextActionType,
  RETURN_CHANNEL,
  CLIENT_ERROR_CODES,
  toAsciiDigits,
  validate,
  validateCreateRequest,
  violationsOf,
  OTP_REQUEST,
  PIN_REQUEST,
  type CashierStatusData,
  type CreatePaymentData,
  type Envelope,
  type NotifyLanguage,
  type NotifyMethod,
  type PayMethod,
  type PayParams,
  type PaymentStatus,
  type UserInfo,
  type Violation,
} from '../core/index.js';
import { carriesPrivateKey, resolveConfig, withoutPrivateKey, type CheckoutConfig } from './config.js';
import { LocalizeController } from './controllers/localize.js';
import { DEFAULT_POLL_INTERVAL_MS, StatusPoller } from './controllers/poller.js';
import { EndpointClient, EndpointError } from './endpoint-client.js';
import {
  SvcActionEvent,
  SvcChangeEvent,
  SvcErrorEvent,
  SvcExpiredEvent,
  SvcHttpResponseEvent,
  SvcPayResultEvent,
  SvcReadyEvent,
} from './events/index.js';
import { CODE_FIELDS, CONFIG_SOURCES, formFieldOf, METHOD_FIELDS, type FieldName } from './fields.js';
import type { PartialTranslation, Translation } from './i18n/translation.js';
import { CheckoutSession, maskEmail, maskMobile, type SavedCheckout } from './session.js';
import { checkoutContext, type ActiveOrder, type CheckoutActions, type CheckoutContext, type CheckoutState } from './state.js';
import { styles } from './svc-checkout.styles.js';
import './parts/index.js';

type Values = CheckoutState['values'];

const EMPTY_VALUES: Values = { Pos: {}, BankAccount: {}, ReferenceCode: {} };
const RESEND_WAIT_SECONDS = 30;
/** Failed status checks in a row before the payer is told the status cannot be checked. */
const STATUS_FAILURES_BEFORE_NOTICE = 3;

/** `sandbox` is true, false, or unset (then `SvcCheckout.isSandBox` decides). */
const optionalBoolean = {
  fromAttribute: (value: string | null) => (value === null ? undefined : value !== 'false'),
  toAttribute: (value: boolean | undefined) => (value === undefined ? null : String(value)),
};

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
 *
 * @slot header - Replaces the order summary at the top.
 * @slot footer - Content under the payment steps, e.g. terms or a support link.
 *
 * @csspart base - The element's outer box.
 * @csspart header - The order summary.
 * @csspart badge - The "Test mode" badge.
 * @csspart amount - The amount to pay.
 * @csspart methods - The choice of payment method.
 * @csspart method - One payment method option.
 * @csspart form - A form of the payer's details or of a code.
 * @csspart field - A label, its input, hint and error.
 * @csspart label - A field's label.
 * @csspart input - A text input or select.
 * @csspart hint - A field's hint.
 * @csspart error - A field's error message.
 * @csspart alert - A message about the whole step.
 * @csspart button - The main button of a step.
 * @csspart button-secondary - Secondary buttons (resend, copy, start again).
 * @csspart step - The box of a next action (terminal, code, bank page, reference code).
 * @csspart heading - A step's heading.
 * @csspart code - The reference code.
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
 * @cssproperty --svc-spacing - The base spacing unit. Default 1rem.
 * @cssproperty --svc-font-family - Default: inherited.
 * @cssproperty --svc-font-size - Default 1rem.
 */
export class SvcCheckout extends LitElement {
  /** The default of every element's `sandbox`, as `Svc.isSandBox` in the SDK. */
  static isSandBox = false;

  static override shadowRootOptions: ShadowRootInit = { ...LitElement.shadowRootOptions, delegatesFocus: true };
  static override styles = styles;

  static override properties: PropertyDeclarations = {
    endpoint: { type: String },
    checkoutToken: { type: String, attribute: 'checkout-token' },
    merchantId: { type: String, attribute: 'merchant-id' },
    merchantName: { type: String, attribute: 'merchant-name' },
    reference: { type: String },
    countryCode: { type: String, attribute: 'country-code' },
    currency: { type: String },
    payAmount: { type: Number, attribute: 'pay-amount' },
    productName: { type: String, attribute: 'product-name' },
    productDescription: { type: String, attribute: 'product-description' },
    callbackUrl: { type: String, attribute: 'callback-url' },
    expireAt: { type: Number, attribute: 'expire-at' },
    payMethod: { type: String, attribute: 'pay-method' },
    methods: { type: String },
    sandbox: { attribute: 'sandbox', converter: optionalBoolean },
    returnUrl: { type: String, attribute: 'return-url' },
    redirectMode: { type: String, attribute: 'redirect-mode' },
    pollInterval: { type: Number, attribute: 'poll-interval' },
    credentials: { type: String },
    locale: { type: String, reflect: false },
    theme: { type: String, reflect: true },
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
  /** The merchant's reference of this order. A retry adds `-2`, `-3`, … */
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
  readonly #poller = new StatusPoller(this, {
    check: (signal) => this.#checkStatus(signal),
    onExpired: () => this.#expireLocally(),
    interval: () => (this.pollInterval && this.pollInterval > 0 ? this.pollInterval : DEFAULT_POLL_INTERVAL_MS),
  });
  readonly #provider = new ContextProvider(this, { context: checkoutContext });

  #config!: CheckoutConfig;
  #configProblem: string | undefined;
  #state: CheckoutState = {
    step: { kind: 'form' },
    methods: [],
    method: 'Pos',
    amount: undefined,
    merchantName: '',
    productName: '',
    values: EMPTY_VALUES,
    errors: {},
    alert: undefined,
    busy: false,
    order: undefined,
    notice: undefined,
    resendWait: 0,
    redirectMode: 'same-window',
    redirectBlocked: false,
    submitCount: 0,
  };
  #touched = new Set<FieldName>();
  /** Field errors the service reported, kept until the payer edits the field. */
  #serverErrors = new Map<FieldName, string>();
  #session: CheckoutSession | undefined;
  #saved: SavedCheckout | undefined;
  #submitting: Promise<void> | undefined;
  #announcement = '';
  #resendTimer: ReturnType<typeof setInterval> | undefined;
  #initializedFor: string | undefined;
  #statusRequest: { reference: string; promise: Promise<Envelope<CashierStatusData>> } | undefined;
  /** Order tokens the kit handed out with status answers, by reference (an order found by its reference). */
  readonly #vouched = new Map<string, string>();
  #statusFailures = 0;
  /** When "send the code again" may be used again (epoch ms). */
  #resendAllowedAt = 0;
  #returns: BroadcastChannel | undefined;
  /** `svc-ready` to dispatch once the initialised state is rendered. */
  #ready: { methods: PayMethod[]; resumed: boolean } | undefined;

  readonly #actions: CheckoutActions = {
    selectMethod: (method) => this.#selectMethod(method),
    input: (name, value) => this.#input(name, value),
    blur: (name) => this.#blur(name),
    submit: () => this.submit(),
    submitCode: (code) => this.#submitCode(code),
    resendOtp: () => this.#resendOtp(),
    openRedirect: () => this.#openRedirect(),
    copyReferenceCode: () => this.#copyReferenceCode(),
    retry: () => this.reset(),
  };

  // ---------------------------------------------------------------------------------------------------------
  // Public API

  /** Sends the form of the selected method. A second call while one is in flight returns the same promise. */
  submit(): Promise<void> {
    if (this.#submitting) return this.#submitting;
    this.#submitting = this.#create().finally(() => {
      this.#submitting = undefined;
    });
    return this.#submitting;
  }

  /** Forgets the current order (it is not cancelled) and starts a new attempt with a new reference. */
  reset(): void {
    // A create or its recovery is under way: its order must be known before a new reference may be used.
    if (this.#state.busy) return;
    this.#poller.stop();
    this.#stopResendTimer();
    if (!this.#saved || this.#saved.order || this.#saved.creating) this.#nextAttempt();
    this.#touched.clear();
    this.#serverErrors.clear();
    this.#set({ step: { kind: 'form' }, order: undefined, alert: undefined, errors: {}, busy: false, notice: undefined });
    this.#emitChange();
  }

  /**
   * Asks the merchant endpoint for the order's status now. Resolves to the status envelope; shares the poll's
   * request when one is in flight, so that there is never more than one.
   */
  async getCashierStatus(): Promise<Envelope<CashierStatusData>> {
    const reference = this.#state.order?.reference ?? this.#saved?.creating?.reference ?? this.#attemptReference();
    const envelope = await this.#fetchStatus(reference);
    if (isSuccess(envelope) && envelope.data) this.#observeStatus(envelope.data);
    return envelope;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Lifecycle

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('privateKey') && this.privateKey !== undefined) {
      this.privateKey = undefined;
      // Not even left in the DOM, where other scripts on the page could read it.
      this.removeAttribute('private-key');
      this.#refusePrivateKey();
    }
    if (changed.has('payParams') && carriesPrivateKey(this.payParams)) {
      this.payParams = withoutPrivateKey(this.payParams as Record<string, unknown>) as Partial<PayParams>;
      this.#refusePrivateKey();
    }
    const resolved = resolveConfig(
      {
        endpoint: this.endpoint,
        checkoutToken: this.checkoutToken,
        merchantId: this.merchantId,
        merchantName: this.merchantName,
        reference: this.reference,
        countryCode: this.countryCode,
        currency: this.currency,
        payAmount: this.payAmount,
        productName: this.productName,
        productDescription: this.productDescription,
        callbackUrl: this.callbackUrl,
        expireAt: this.expireAt,
        payMethod: this.payMethod,
        methods: this.methods,
        returnUrl: this.returnUrl,
      },
      this.payParams,
      this.userInfo,
    );
    this.#config = resolved.config;
    // A refused private key stays refused; any other problem is whatever the settings say now.
    if (this.#configProblem !== 'private-key') this.#configProblem = resolved.problem;
    const methods = this.#config.methods;
    const method = methods.includes(this.#state.method) ? this.#state.method : (methods[0] as PayMethod);
    const amount =
      this.#config.payAmount !== undefined && this.#config.currency
        ? { total: this.#config.payAmount, currency: this.#config.currency }
        : undefined;
    this.#state = {
      ...this.#state,
      methods,
      method,
      amount,
      merchantName: this.#config.merchantName,
      productName: this.#config.productName ?? '',
      redirectMode: this.redirectMode === 'new-window' ? 'new-window' : 'same-window',
    };
    // First update, a new order (another reference or merchant), or settings that arrived late and are now
    // complete: pick up where this order stands.
    const broken = Boolean(this.#configProblem) || this.#configViolations().length > 0;
    const step = this.#state.step.kind;
    // A setting changed while the form shows: broken now means the configuration error (an order under way
    // is left to finish); fixed means the form again.
    if (this.#sessionKey() !== this.#initializedFor || (step === 'config-error' && !broken) || (step === 'form' && broken)) {
      this.#initialize();
    }
    this.#applyDirection();
    this.#publish();
  }

  protected override updated(changed: PropertyValues<this>): void {
    super.updated(changed);
    if (this.#ready) {
      const detail = this.#ready;
      this.#ready = undefined;
      this.dispatchEvent(new SvcReadyEvent(detail));
    }
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.#resendAllowedAt > Date.now()) this.#tickResendTimer();
    // The kit's return page tells this tab when the bank's window is done with: look at once.
    if (typeof BroadcastChannel === 'function') {
      this.#returns = new BroadcastChannel(RETURN_CHANNEL);
      this.#returns.onmessage = (event: MessageEvent) => {
        const order = this.#state.order;
        if ((event.data as { type?: unknown } | null)?.type === '3ds-return' && order?.actionType === 'REDIRECT_3DS' && !isTerminalStatus(order.status)) {
          void this.#poller.checkNow();
        }
      };
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stopResendTimer();
    this.#returns?.close();
    this.#returns = undefined;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Rendering

  protected override render(): TemplateResult {
    const t = this.#localize.term;
    const state = this.#state;
    const sandbox = this.sandbox ?? SvcCheckout.isSandBox;
    return html`
      <div part="base" class="base" lang=${t.$code} dir=${this.#localize.dir}>
        <slot name="header">
          <div part="header" class="header">
            <div class="merchant">
              <span class="merchant-name">${state.merchantName}</span>
              ${sandbox ? html`<span part="badge" class="badge" title=${t.testModeHint}>${t.testMode}</span>` : nothing}
            </div>
            ${state.amount
              ? html`<p part="amount" class="amount">
                  <span class="amount-label">${t.total}</span>
                  <span class="amount-value">${this.#localize.money(state.amount.total, state.amount.currency)}</span>
                </p>`
              : nothing}
            ${state.productName ? html`<p class="product">${state.productName}</p>` : nothing}
          </div>
        </slot>
        <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">${this.#announcement}</div>
        <div class="body">${this.#renderStep(t)}</div>
        <slot name="footer"></slot>
      </div>
    `;
  }

  #renderStep(t: Translation): TemplateResult {
    const state = this.#state;
    switch (state.step.kind) {
      case 'config-error':
        return html`<div part="alert" class="alert" role="alert">${t.configError(state.step.setting)}</div>`;
      case 'form':
        return html`
          ${state.methods.length > 1 ? html`<svc-method-picker exportparts="methods, method"></svc-method-picker>` : nothing}
          ${this.#renderForm()}
        `;
      case 'action':
        return this.#renderAction();
      case 'waiting':
        return html`<svc-waiting-step exportparts="step, heading, status, spinner, alert, button-secondary"></svc-waiting-step>`;
      case 'result':
        return html`<svc-result exportparts="result, heading, button, alert"></svc-result>`;
    }
  }

  #renderForm(): TemplateResult {
    const parts = 'form, field, label, input, hint, error, alert, button';
    switch (this.#state.method) {
      case 'Pos':
        return html`<svc-pos-form exportparts=${parts}></svc-pos-form>`;
      case 'BankAccount':
        return html`<svc-bank-account-form exportparts=${parts}></svc-bank-account-form>`;
      case 'ReferenceCode':
        return html`<svc-reference-code-form exportparts=${parts}></svc-reference-code-form>`;
    }
  }

  #renderAction(): TemplateResult {
    const parts = 'step, heading, status, spinner, countdown, alert, button, button-secondary, form, field, label, input, hint, error, code';
    switch (this.#state.order?.actionType) {
      case 'SWIPE_CARD':
        return html`<svc-swipe-step exportparts=${parts}></svc-swipe-step>`;
      case 'INPUT_OTP':
      case 'INPUT_PIN':
        return html`<svc-code-step exportparts=${parts}></svc-code-step>`;
      case 'REDIRECT_3DS':
        return html`<svc-redirect-step exportparts=${parts}></svc-redirect-step>`;
      case 'REFERENCE_CODE':
        return html`<svc-reference-code-step exportparts=${parts}></svc-reference-code-step>`;
      default:
        return html`<svc-waiting-step exportparts=${parts}></svc-waiting-step>`;
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // State

  #set(patch: Partial<CheckoutState>): void {
    const before = this.#state.step;
    // Read before the update: the focused control (Pay, Confirm) goes away with its step.
    const hadFocus = this.matches(':focus-within');
    this.#state = { ...this.#state, ...patch };
    this.#publish();
    this.requestUpdate();
    if (patch.step && patch.step !== before && hadFocus) void this.#focusStep();
  }

  #publish(): void {
    const value: CheckoutContext = { state: this.#state, actions: this.#actions, localize: this.#localize };
    this.#provider.setValue(value, true);
  }

  /** Moves focus to the new step's start, so that keyboard and screen reader users follow it. */
  async #focusStep(): Promise<void> {
    await this.updateComplete;
    const part = this.shadowRoot?.querySelector<HTMLElement & { focusStart?: () => void }>('.body > *:last-child');
    if (!part) return;
    await (part as unknown as LitElement).updateComplete;
    part.focusStart?.();
  }

  #announce(text: string): void {
    // Cleared first, so that the same words said twice are announced twice.
    this.#announcement = '';
    this.requestUpdate();
    requestAnimationFrame(() => {
      this.#announcement = text;
      this.requestUpdate();
    });
  }

  #applyDirection(): void {
    // Mirrors `:host(:dir(rtl))` styles: the element's direction follows its language unless the page set one.
    const dir = this.#localize.dir;
    if (!this.hasAttribute('dir') || this.dataset['svcDir'] === 'auto') {
      this.dataset['svcDir'] = 'auto';
      if (this.getAttribute('dir') !== dir) this.setAttribute('dir', dir);
    }
  }

  #initialize(): void {
    const key = this.#sessionKey();
    this.#initializedFor = key;
    this.#poller.stop();
    this.#stopResendTimer();
    this.#touched.clear();
    this.#serverErrors.clear();
    this.#state = { ...this.#state, order: undefined, alert: undefined, notice: undefined, errors: {}, busy: false, resendWait: 0 };
    if (this.#configProblem) {
      this.#set({ step: { kind: 'config-error', setting: this.#configProblem } });
      this.#emitError('CONFIG', `${CLIENT_ERROR_CODES.CONFIG.message}: ${this.#configProblem}`, false);
      return;
    }
    const configViolation = this.#configViolations()[0];
    if (configViolation) {
      const setting = CONFIG_SOURCES[configViolation.field] ?? configViolation.field;
      this.#set({ step: { kind: 'config-error', setting } });
      this.#emitError('CONFIG', `${setting}: ${configViolation.message}`, false);
      return;
    }
    this.#session = new CheckoutSession(key);
    this.#saved = this.#session.load();
    this.#prefill();
    let resumed = false;
    if (this.#saved?.order) {
      resumed = true;
      this.#resume(this.#saved.order);
    } else if (this.#saved?.creating) {
      resumed = true;
      // Nothing to press while the lost answer is looked for: a second create would race the recovery.
      this.#set({ step: { kind: 'waiting' }, busy: true });
      const reference = this.#saved.creating.reference;
      void this.#recoverCreate(reference).finally(() => this.#set({ busy: false }));
    } else {
      this.#saved ??= { version: 1, base: this.#baseReference(), attempt: 1 };
      this.#session.save(this.#saved);
      this.#set({ step: { kind: 'form' } });
    }
    this.#ready = { methods: [...this.#config.methods], resumed };
  }

  /** The payer's details the merchant already knows fill the reference code form. */
  #prefill(): void {
    const info = this.#config.userInfo;
    const language: NotifyLanguage = this.#localize.term.$code.startsWith('ar') ? 'Arabic' : 'English';
    const current = this.#state.values.ReferenceCode;
    this.#state = {
      ...this.#state,
      values: {
        ...this.#state.values,
        ReferenceCode: {
          notifyUserName: info.userName ?? '',
          notifyUserEmail: info.userEmail ?? '',
          notifyUserMobile: info.userMobile ?? '',
          notifyMethod: 'BOTH',
          notifyLanguage: language,
          ...current,
        },
      },
    };
  }

  #sessionKey(): string {
    const page = typeof location === 'undefined' ? '' : location.pathname;
    return `svc-checkout:${this.#config.merchantId ?? ''}:${this.#config.reference ?? `page:${page}`}`;
  }

  #baseReference(): string {
    if (this.#config.reference) return this.#config.reference;
    const random = crypto.getRandomValues(new Uint32Array(2));
    return `svc-${Date.now().toString(36)}-${Array.from(random, (n) => n.toString(36)).join('')}`;
  }

  /** The reference of the current attempt: the base, then base-2, base-3, … within 64 characters. */
  #attemptReference(): string {
    const saved = this.#saved ?? { base: this.#baseReference(), attempt: 1 };
    return attemptReference(saved.base, saved.attempt);
  }

  #client(): EndpointClient {
    return new EndpointClient({
      endpoint: this.#config.endpoint ?? '',
      checkoutToken: this.#config.checkoutToken,
      credentials: this.credentials ?? 'same-origin',
    });
  }

  #country(): string {
    return this.#state.order?.country ?? this.#config.countryCode ?? '';
  }

  // ---------------------------------------------------------------------------------------------------------
  // The form

  #selectMethod(method: PayMethod): void {
    if (!this.#config.methods.includes(method) || this.#state.step.kind !== 'form' || this.#state.busy) return;
    this.#touched.clear();
    this.#serverErrors.clear();
    this.#set({ method, errors: {}, alert: undefined });
    this.#emitChange();
  }

  #input(name: FieldName, value: string): void {
    this.#serverErrors.delete(name);
    const method = this.#state.method;
    const values = { ...this.#state.values, [method]: { ...this.#state.values[method], [name]: value } };
    this.#state = { ...this.#state, values };
    // Fixing a field clears its error at once; new errors wait for the payer to leave the field.
    if (this.#state.errors[name]) this.#showErrors(false);
    else this.#publish();
    this.#emitChange();
  }

  #blur(name: FieldName): void {
    // Chromium blurs a focused input while Lit removes it, in the middle of a part's update: handle the blur
    // once that update is done. An input taken away with its step means nothing.
    queueMicrotask(() => {
      if (this.#state.step.kind !== 'form') return;
      this.#touched.add(name);
      this.#showErrors(false);
    });
  }

  /** The create request the form would send now. */
  #createBody(): Record<string, unknown> {
    const config = this.#config;
    const method = this.#state.method;
    const typed = Object.fromEntries(
      Object.entries(this.#state.values[method]).map(([name, value]) => [name, toAsciiDigits(value ?? '').trim()]),
    ) as Partial<Record<FieldName, string>>;
    const info = config.userInfo;
    const body: Record<string, unknown> = {
      reference: this.#attemptReference(),
      amount: { total: config.payAmount, currency: config.currency },
      product: { name: config.productName, description: config.productDescription },
      payMethod: method,
      country: config.countryCode,
      expireAt: config.expireAt,
      callbackUrl: config.callbackUrl,
      customerName: info.userName,
      userPhone: info.userMobile,
    };
    switch (method) {
      case 'Pos':
        return { ...body, sn: typed.sn };
      case 'BankAccount':
        return {
          ...body,
          bankAccountNumber: typed.bankAccountNumber,
          bankCode: typed.bankCode,
          dobDay: typed.dobDay,
          dobMonth: typed.dobMonth,
          dobYear: typed.dobYear,
          returnUrl: config.returnUrl ?? defaultReturnUrl(this.#state.redirectMode, config.endpoint ?? ''),
        };
      case 'ReferenceCode': {
        // Only the contacts of the chosen channel leave the page.
        const channel = typed.notifyMethod || 'BOTH';
        return {
          ...body,
          merchantName: config.merchantName || undefined,
          notify: {
            notifyUserName: typed.notifyUserName,
            notifyLanguage: typed.notifyLanguage,
            notifyMethod: typed.notifyMethod,
            notifyUserEmail: channel === 'SMS' ? undefined : typed.notifyUserEmail,
            notifyUserMobile: channel === 'EMAIL' ? undefined : typed.notifyUserMobile,
          },
        };
      }
    }
  }

  /** Violations of the fields the merchant configures. */
  #configViolations(): Violation[] {
    const result = validateCreateRequest(this.#createBody());
    return result.ok ? [] : result.violations.filter((violation) => CONFIG_SOURCES[violation.field] !== undefined);
  }

  /** The payer's violations by form field. */
  #payerViolations(): Map<FieldName, Violation> {
    const result = validateCreateRequest(this.#createBody());
    const found = new Map<FieldName, Violation>();
    if (result.ok) return found;
    for (const violation of result.violations) {
      const field = formFieldOf(this.#state.method, violation.field);
      if (field && !found.has(field)) found.set(field, violation);
    }
    return found;
  }

  #showErrors(all: boolean): Map<FieldName, Violation> {
    const violations = this.#payerViolations();
    const errors: Partial<Record<FieldName, string>> = {};
    for (const [field, violation] of violations) {
      if (all || this.#touched.has(field)) errors[field] = this.#messageFor(field, violation);
    }
    // What the service said about a field stands until the payer changes that field.
    for (const [field, message] of this.#serverErrors) errors[field] ??= message;
    this.#set({ errors });
    return violations;
  }

  #messageFor(field: FieldName, violation: Pick<Violation, 'rule' | 'message'>): string {
    const t = this.#localize.term;
    const label = t.label[field];
    switch (violation.rule) {
      case 'required':
        return t.fieldError.required(label);
      case 'format':
      case 'type':
      case 'integer':
      case 'enum':
      case 'url':
      case 'positive':
        return t.fieldError.format(label);
      case 'minLength':
      case 'maxLength':
        return t.fieldError.length(label);
      case 'date':
        return t.fieldError.date;
      case 'past':
        return t.fieldError.past;
      case 'min':
        return field === 'dobYear' ? t.fieldError.tooOld : t.fieldError.other(label);
      case 'mismatch':
        return field === 'otp' || field === 'pin' ? t.fieldError.mismatchCode : t.fieldError.mismatchDateOfBirth;
      case 'merchant':
        return violation.message;
      case 'limit':
        return t.fieldError.limit;
      case 'state':
        return t.fieldError.state;
      case 'characters':
        return t.fieldError.characters(label);
      default:
        return t.fieldError.other(label);
    }
  }

  #emitChange(): void {
    const complete = this.#payerViolations().size === 0 && this.#configViolations().length === 0;
    this.dispatchEvent(new SvcChangeEvent({ payMethod: this.#state.method, complete }));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Create

  async #create(retried = false): Promise<void> {
    if (this.#state.step.kind !== 'form' || this.#configProblem) return;
    for (const field of METHOD_FIELDS[this.#state.method]) this.#touched.add(field.name);
    const violations = this.#showErrors(true);
    this.#set({ submitCount: this.#state.submitCount + 1, alert: undefined });
    if (violations.size > 0) {
      this.#announce(this.#localize.term.formHasErrors(violations.size, (n) => this.#localize.number(n)));
      return;
    }
    const checked = validateCreateRequest(this.#createBody());
    if (!checked.ok) {
      const first = checked.violations[0] as Violation;
      const setting = CONFIG_SOURCES[first.field] ?? first.field;
      this.#set({ step: { kind: 'config-error', setting } });
      this.#emitError('CONFIG', `${setting}: ${first.message}`, false);
      return;
    }
    const body = checked.value;
    const method = this.#state.method;
    this.#saved = { ...(this.#saved ?? { version: 1, base: this.#baseReference(), attempt: 1 }), creating: { reference: body.reference, payMethod: method } };
    this.#session?.save(this.#saved);
    this.#set({ busy: true });
    this.#announce(this.#localize.term.processing);
    const sent = body as unknown as Record<string, unknown>;
    let answer;
    try {
      answer = await this.#client().post<CreatePaymentData>('create', body);
    } catch (error) {
      // No answer: the create may have reached the service and made the order. Look it up by its reference
      // before telling the payer anything; a new reference could make a second order.
      await this.#settleUnknownCreate(body.reference, sent, () => this.#transportError(error));
      return;
    }
    const { envelope, expiresIn, orderToken } = answer;
    this.dispatchEvent(new SvcHttpResponseEvent(envelope));
    if (isSuccess(envelope) && envelope.data) {
      this.#set({ busy: false });
      this.#applyCreated(envelope.data, method, sent, expiresIn, orderToken);
      return;
    }
    if (isCreateOutcomeUnknown(envelope.code)) {
      await this.#settleUnknownCreate(body.reference, sent, () => this.#envelopeError(envelope));
      return;
    }
    if (isDuplicateReference(envelope.code)) {
      const outcome = await this.#recoverCreate(body.reference, { duplicate: true });
      this.#set({ busy: false });
      // That reference is spent (its order failed or closed): the payer meant to pay, so once, send the next.
      if (outcome === 'spent' && !retried) {
        this.#nextAttempt();
        await this.#create(true);
      }
      return;
    }
    this.#set({ busy: false });
    this.#clearCreating();
    this.#envelopeError(envelope);
  }

  #applyCreated(
    data: CreatePaymentData,
    method: PayMethod,
    body: Record<string, unknown>,
    expiresIn: number | undefined,
    token: string | undefined,
  ): void {
    const status: PaymentStatus = isPaymentStatus(data.status) ? data.status : 'PENDING';
    const actionType = method === 'ReferenceCode' ? 'REFERENCE_CODE' : normalizeNextActionType(data.nextAction?.actionType);
    const order: ActiveOrder = {
      reference: data.reference ?? (body['reference'] as string),
      orderNo: String(data.orderNo ?? ''),
      payMethod: method,
      status,
      country: (body['country'] as string | undefined) ?? this.#config.countryCode ?? '',
      amount: data.amount ?? this.#state.amount,
      redirectUrl: data.nextAction?.redirectUrl,
      referenceCode: data.referenceCode,
      ...knownFromCreate(method, body),
      actionType,
      expiresAt: expiresIn !== undefined ? Date.now() + expiresIn * 1000 : undefined,
      failureCode: data.failureCode,
      failureReason: data.failureReason,
      token,
    };
    this.#saved = { ...(this.#saved as SavedCheckout), creating: undefined, order };
    this.#session?.save(this.#saved);
    this.#forgetSecrets(method);
    this.#emitPayResult(order);
    if (isTerminalStatus(status)) {
      this.#showResult(order);
      return;
    }
    this.#showAction(order, false);
  }

  /**
   * A create that got no answer, or an answer that cannot say whether the order was made: its status decides.
   * Only when the service has no such order is the payer told of the failure (by `report`); the reference
   * stays the same, so that sending again can only meet this order.
   */
  async #settleUnknownCreate(reference: string, sent: Record<string, unknown>, report: () => void): Promise<void> {
    const outcome = await this.#recoverCreate(reference, { sent });
    this.#set({ busy: false });
    if (outcome === 'absent') report();
  }

  /**
   * A create whose answer was lost (a reload, a timeout) or refused as a duplicate: the order may exist. Its
   * status decides: pending resumes, paid shows the result, failed or closed shows it, or (a duplicate) moves
   * on to a new attempt. `sent` is the create body, when this page sent it: what it tells about the order.
   */
  async #recoverCreate(
    reference: string,
    options: { duplicate?: boolean; sent?: Record<string, unknown> } = {},
  ): Promise<'resolved' | 'spent' | 'absent'> {
    let envelope: Envelope<CashierStatusData>;
    try {
      envelope = await this.#fetchStatus(reference);
    } catch (error) {
      // Still unknown: `creating` stays saved, so a retry sends the same reference and a reload looks again.
      this.#set({ step: { kind: 'form' } });
      this.#transportError(error);
      return 'resolved';
    }
    const data = envelope.data;
    if (!isSuccess(envelope) || !data || !isPaymentStatus(data.status)) {
      // No such order: the create never arrived, and the same reference may be sent again.
      this.#clearCreating();
      this.#set({ step: { kind: 'form' } });
      if (options.duplicate) this.#envelopeError(envelope);
      return 'absent';
    }
    const payMethod = this.#saved?.creating?.payMethod ?? this.#state.method;
    const order: ActiveOrder = {
      reference: data.reference ?? reference,
      orderNo: String(data.orderNo ?? ''),
      payMethod,
      status: data.status,
      country: this.#config.countryCode ?? '',
      amount: data.amount ?? this.#state.amount,
      failureCode: data.failureCode ?? undefined,
      failureReason: data.failureReason ?? undefined,
      token: this.#vouched.get(reference),
      ...(options.sent ? { ...knownFromCreate(payMethod, options.sent), answerLost: true } : {}),
      // Refused as a duplicate: this checkout did not make that order, whoever paid it.
      ...(options.duplicate && data.status === 'SUCCESS' ? { paidBefore: true } : {}),
    };
    // An order of this reference for another amount is not the one the payer is looking at: never shown as theirs.
    if (!sameAmount(data.amount, this.#state.amount)) {
      this.#clearCreating();
      this.#set({ step: { kind: 'result', outcome: 'MISMATCH' }, order: undefined, busy: false, alert: undefined, notice: undefined });
      this.#announce(this.#localize.term.mismatchTitle);
      this.#emitError('ORDER_MISMATCH', CLIENT_ERROR_CODES.ORDER_MISMATCH.message, false);
      return 'resolved';
    }
    // A spent reference's order is not this attempt's: the payer's secrets are still needed for the next one.
    if ((data.status === 'FAIL' || data.status === 'CLOSE') && options.duplicate) return 'spent';
    this.#forgetSecrets(payMethod);
    this.#saved = { ...(this.#saved as SavedCheckout), creating: undefined, order };
    this.#session?.save(this.#saved);
    if (options.sent) this.#emitPayResult(order);
    if (data.status === 'FAIL' || data.status === 'CLOSE') {
      this.#showResult(order);
      return 'resolved';
    }
    if (!options.sent) this.#emitPayResult(order);
    if (data.status === 'SUCCESS') this.#showResult(order);
    // A POS order always waits for its card at the terminal this page named.
    else if (order.actionType === 'SWIPE_CARD') this.#showAction(order, true);
    else this.#wait(order);
    return 'resolved';
  }

  /** A pending order whose next action this page does not know: follow its status. */
  #wait(order: ActiveOrder): void {
    const t = this.#localize.term;
    // A reference code's answer was lost, but the code also went to the payer's phone or mailbox.
    const alert =
      order.payMethod === 'ReferenceCode' && order.notifyMethod
        ? t.codeSentOnly(order.notifyMethod, order.maskedEmail ?? '', order.maskedMobile ?? '')
        : order.answerLost
          ? t.answerLost
          : t.duplicateInProgress;
    this.#set({ order, step: { kind: 'waiting' }, alert });
    this.#announce(alert);
    this.#poller.start({ checkFirst: true });
  }

  /** The order exists, so the service has the payer's secrets: the page forgets them (a retry asks again). */
  #forgetSecrets(method: PayMethod): void {
    const secrets = METHOD_FIELDS[method].filter((field) => field.secret);
    if (secrets.length === 0) return;
    const kept = { ...this.#state.values[method] };
    for (const field of secrets) delete kept[field.name];
    this.#set({ values: { ...this.#state.values, [method]: kept } });
  }

  /** Moves on to the next attempt's reference, keeping what the payer typed. */
  #nextAttempt(): void {
    const saved = this.#saved ?? { version: 1 as const, base: this.#baseReference(), attempt: 1 };
    this.#saved = { version: 1, base: saved.base, attempt: saved.attempt + 1 };
    this.#session?.save(this.#saved);
  }

  #clearCreating(): void {
    if (!this.#saved?.creating) return;
    this.#saved = { ...this.#saved, creating: undefined };
    this.#session?.save(this.#saved);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Next actions

  #showAction(order: ActiveOrder, resumed: boolean): void {
    this.#set({ order, step: { kind: 'action' }, alert: undefined, notice: undefined, errors: {} });
    const t = this.#localize.term;
    this.dispatchEvent(
      new SvcActionEvent({
        actionType: order.actionType ?? 'SWIPE_CARD',
        orderNo: order.orderNo,
        reference: order.reference,
        ...(order.redirectUrl ? { redirectUrl: order.redirectUrl } : {}),
        ...(order.referenceCode ? { referenceCode: order.referenceCode } : {}),
      }),
    );
    const heading: Partial<Record<NonNullable<ActiveOrder['actionType']>, string>> = {
      SWIPE_CARD: t.swipeTitle,
      INPUT_OTP: t.otpTitle,
      INPUT_PIN: t.pinTitle,
      REDIRECT_3DS: t.redirectTitle,
      REFERENCE_CODE: t.codeTitle,
    };
    this.#announce(heading[order.actionType ?? 'SWIPE_CARD'] ?? t.waiting);
    if (order.actionType === 'REDIRECT_3DS' && !resumed) {
      if (!order.redirectUrl || !isHttpUrl(order.redirectUrl)) {
        this.#set({ alert: t.genericError });
        this.#emitError('REDIRECT_URL', 'the 3-D Secure address is not an http(s) URL', false);
        return;
      }
      // Taken out of the page meanwhile (another route of an app): the order is saved; do not leave the page.
      if (!this.isConnected) return;
      if (this.#state.redirectMode === 'same-window') {
        this.#redirect(order);
        return;
      }
      this.#openRedirect();
    }
    this.#poller.start({ expiresAt: order.expiresAt, checkFirst: resumed });
  }

  #redirect(order: ActiveOrder): void {
    const redirected = { ...order, redirected: true };
    this.#saved = { ...(this.#saved as SavedCheckout), order: redirected };
    this.#session?.save(this.#saved);
    this.#set({ order: redirected });
    window.location.assign(order.redirectUrl as string);
  }

  #openRedirect(): void {
    const order = this.#state.order;
    if (!order?.redirectUrl || !isHttpUrl(order.redirectUrl)) return;
    if (this.#state.redirectMode === 'same-window') {
      this.#redirect(order);
      return;
    }
    const blocked = !openDetached(order.redirectUrl);
    const redirected = { ...order, redirected: !blocked || order.redirected };
    this.#saved = { ...(this.#saved as SavedCheckout), order: redirected };
    this.#session?.save(this.#saved);
    this.#set({ order: redirected, redirectBlocked: blocked, alert: blocked ? this.#localize.term.redirectBlocked : undefined });
  }

  #resume(order: ActiveOrder): void {
    this.#state = { ...this.#state, method: order.payMethod };
    if (isTerminalStatus(order.status)) {
      this.#set({ order });
      this.#showResult(order, { quiet: true });
      return;
    }
    if (!order.actionType) {
      this.#wait(order);
      return;
    }
    this.#showAction(order, true);
  }

  /** Sends the OTP or PIN; resolves to whether it was sent (a code refused here is kept, to be corrected). */
  async #submitCode(code: string): Promise<boolean> {
    const order = this.#state.order;
    if (!order || this.#state.busy) return false;
    const actionType = order.actionType === 'INPUT_PIN' ? 'INPUT_PIN' : 'INPUT_OTP';
    const field = CODE_FIELDS[actionType];
    const value = toAsciiDigits(code).trim();
    const body = { country: order.country, orderNo: order.orderNo, [field.name]: value };
    const checked = validate(actionType === 'INPUT_PIN' ? PIN_REQUEST : OTP_REQUEST, body);
    if (!checked.ok) {
      const violation = checked.violations.find((item) => item.field === field.name) ?? (checked.violations[0] as Violation);
      this.#set({ errors: { [field.name]: this.#messageFor(field.name, violation) }, submitCount: this.#state.submitCount + 1 });
      return false;
    }
    this.#set({ busy: true, errors: {}, alert: undefined, notice: undefined });
    try {
      const { envelope } = await this.#client().post<CreatePaymentData>(actionType === 'INPUT_PIN' ? 'pin' : 'otp', checked.value, {
        orderToken: order.token,
      });
      this.#set({ busy: false });
      if (isSuccess(envelope) && envelope.data) {
        this.#observeStatus(envelope.data);
        return true;
      }
      const violation = violationsOf(envelope).find((item) => item.field === field.name);
      if (violation) {
        this.#set({ errors: { [field.name]: this.#messageFor(field.name, violation) }, submitCount: this.#state.submitCount + 1 });
        this.#announce(this.#messageFor(field.name, violation));
        return true;
      }
      this.#envelopeError(envelope);
    } catch (error) {
      this.#set({ busy: false });
      this.#transportError(error);
    }
    return true;
  }

  async #resendOtp(): Promise<void> {
    const order = this.#state.order;
    if (!order || this.#state.busy || this.#state.resendWait > 0) return;
    this.#set({ busy: true, alert: undefined, notice: undefined });
    try {
      const { envelope } = await this.#client().post<CreatePaymentData>(
        'resendOtp',
        { country: order.country, orderNo: order.orderNo },
        { orderToken: order.token },
      );
      this.#set({ busy: false });
      if (isSuccess(envelope)) {
        const t = this.#localize.term;
        this.#set({ notice: t.resent });
        this.#announce(t.resent);
        this.#startResendTimer();
        return;
      }
      this.#envelopeError(envelope);
    } catch (error) {
      this.#set({ busy: false });
      this.#transportError(error);
    }
  }

  #startResendTimer(): void {
    this.#resendAllowedAt = Date.now() + RESEND_WAIT_SECONDS * 1000;
    this.#tickResendTimer();
  }

  /** Counts down to `#resendAllowedAt` from the clock, so that a pause (the element moved) loses nothing. */
  #tickResendTimer(): void {
    this.#stopResendTimer();
    const left = Math.max(0, Math.ceil((this.#resendAllowedAt - Date.now()) / 1000));
    this.#set({ resendWait: left });
    if (left > 0) this.#resendTimer = setInterval(() => this.#tickResendTimer(), 1000);
  }

  #stopResendTimer(): void {
    clearInterval(this.#resendTimer);
    this.#resendTimer = undefined;
  }

  async #copyReferenceCode(): Promise<void> {
    const code = this.#state.order?.referenceCode;
    if (!code) return;
    const t = this.#localize.term;
    try {
      await navigator.clipboard.writeText(code);
      this.#set({ notice: t.copied });
      this.#announce(t.copied);
    } catch {
      this.#set({ notice: t.copyFailed });
      this.#announce(t.copyFailed);
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Status

  /**
   * One status request at a time for the whole element: the poller and getCashierStatus() share it. The
   * order's own token proves it when the page has one; otherwise the checkout token covers the reference, and
   * the answer brings the order's token.
   */
  #fetchStatus(reference: string, signal?: AbortSignal): Promise<Envelope<CashierStatusData>> {
    if (this.#statusRequest?.reference === reference) return this.#statusRequest.promise;
    const order = this.#state.order?.reference === reference ? this.#state.order : undefined;
    const promise = this.#client()
      .post<CashierStatusData>('status', { country: this.#country(), reference }, { signal, orderToken: order?.token })
      .then((answer) => {
        if (answer.orderToken) this.#vouched.set(reference, answer.orderToken);
        return answer.envelope;
      })
      .finally(() => {
        if (this.#statusRequest?.promise === promise) this.#statusRequest = undefined;
      });
    this.#statusRequest = { reference, promise };
    return promise;
  }

  async #checkStatus(signal: AbortSignal): Promise<PaymentStatus | undefined> {
    const order = this.#state.order;
    if (!order) return undefined;
    let envelope: Envelope<CashierStatusData> | undefined;
    try {
      envelope = await this.#fetchStatus(order.reference, signal);
    } catch {
      envelope = undefined;
    }
    if (signal.aborted) return undefined;
    if (!envelope || !isSuccess(envelope) || !envelope.data || !isPaymentStatus(envelope.data.status)) {
      this.#statusFailures += 1;
      if (this.#statusFailures === STATUS_FAILURES_BEFORE_NOTICE) {
        const t = this.#localize.term;
        this.#set({ notice: t.statusCheckFailed });
        this.#announce(t.statusCheckFailed);
        this.#emitError('STATUS_UNKNOWN', CLIENT_ERROR_CODES.STATUS_UNKNOWN.message, true);
      }
      return undefined;
    }
    if (this.#statusFailures >= STATUS_FAILURES_BEFORE_NOTICE) this.#set({ notice: undefined });
    this.#statusFailures = 0;
    this.#observeStatus(envelope.data);
    return envelope.data.status;
  }

  /** Applies a status seen in any answer; a change is reported, and a terminal one ends the flow. */
  #observeStatus(data: {
    status: string;
    reference?: string | undefined;
    orderNo?: string | undefined;
    failureCode?: string | null | undefined;
    failureReason?: string | null | undefined;
    nextAction?: { actionType: string; redirectUrl?: string } | undefined;
  }): void {
    const order = this.#state.order;
    if (!order || !isPaymentStatus(data.status)) return;
    // An answer about another order (the one before a retry) says nothing about this one.
    if (data.reference !== undefined && data.reference !== order.reference) return;
    if (data.orderNo !== undefined && order.orderNo !== '' && String(data.orderNo) !== order.orderNo) return;
    const nextActionType = normalizeNextActionType(data.nextAction?.actionType);
    const changedAction = nextActionType !== undefined && nextActionType !== order.actionType;
    if (data.status === order.status && !changedAction) return;
    const updated: ActiveOrder = {
      ...order,
      status: data.status,
      failureCode: data.failureCode ?? order.failureCode,
      failureReason: data.failureReason ?? order.failureReason,
      ...(changedAction ? { actionType: nextActionType, redirectUrl: data.nextAction?.redirectUrl, redirected: false } : {}),
    };
    this.#saved = { ...(this.#saved as SavedCheckout), order: updated };
    this.#session?.save(this.#saved);
    if (data.status !== order.status) this.#emitPayResult(updated);
    if (isTerminalStatus(data.status)) {
      this.#poller.stop();
      this.#showResult(updated);
      return;
    }
    if (changedAction) this.#showAction(updated, false);
    else this.#set({ order: updated });
  }

  #expireLocally(): void {
    const order = this.#state.order;
    if (!order || isTerminalStatus(order.status)) return;
    const expired: ActiveOrder = { ...order, status: 'CLOSE' };
    this.#saved = { ...(this.#saved as SavedCheckout), order: expired };
    this.#session?.save(this.#saved);
    this.#showResult(expired);
  }

  #showResult(order: ActiveOrder, options: { quiet?: boolean } = {}): void {
    const outcome =
      order.status === 'SUCCESS' ? (order.paidBefore ? 'PAID_BEFORE' : 'SUCCESS') : order.status === 'FAIL' ? 'FAIL' : 'CLOSE';
    this.#poller.stop();
    this.#stopResendTimer();
    this.#set({ order, step: { kind: 'result', outcome }, busy: false, alert: undefined, notice: undefined });
    const t = this.#localize.term;
    if (!options.quiet) {
      const title = { SUCCESS: t.successTitle, PAID_BEFORE: t.paidBeforeTitle, FAIL: t.failTitle, CLOSE: t.expiredTitle };
      this.#announce(title[outcome]);
      if (outcome === 'CLOSE') this.dispatchEvent(new SvcExpiredEvent({ orderNo: order.orderNo, reference: order.reference }));
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Errors and events

  #emitPayResult(order: ActiveOrder): void {
    this.dispatchEvent(
      new SvcPayResultEvent({
        callbackName: 'webPayCallback',
        eventName: 'svc-pay-result',
        merchantId: this.#config.merchantId ?? '',
        orderNo: order.orderNo,
        orderStatus: order.status,
        payNo: order.orderNo,
        referenceCode: order.referenceCode ?? '',
      }),
    );
    this.#announce(`${this.#localize.term.statusLabel}: ${this.#localize.term.status[order.status]}`);
  }

  #emitError(code: string, message: string, retryable: boolean): void {
    this.dispatchEvent(new SvcErrorEvent({ code, message, retryable }));
  }

  #transportError(error: unknown): void {
    const t = this.#localize.term;
    if (error instanceof EndpointError) {
      this.#set({ alert: error.retryable ? t.networkError : t.genericError });
      this.#emitError(error.code, error.message, error.retryable);
      return;
    }
    this.#set({ alert: t.genericError });
    this.#emitError('NETWORK', error instanceof Error ? error.message : 'request failed', true);
  }

  /** An envelope that is not a success: field errors where they belong, the rest as an alert. */
  #envelopeError(envelope: Envelope): void {
    const t = this.#localize.term;
    const retryable = isRetryable(envelope.code);
    this.#emitError(envelope.code, envelope.message, retryable);
    if (envelope.code === '02001') {
      const errors: Partial<Record<FieldName, string>> = {};
      let configSetting: string | undefined;
      const others: string[] = [];
      for (const violation of violationsOf(envelope)) {
        const field = formFieldOf(this.#state.method, violation.field);
        if (field) {
          errors[field] = this.#messageFor(field, violation);
          this.#serverErrors.set(field, errors[field] as string);
        }
        else if (CONFIG_SOURCES[violation.field] && violation.rule !== 'merchant') configSetting ??= CONFIG_SOURCES[violation.field];
        // The merchant's own words (an OrderRejection) are for the payer; the service's English is not.
        else if (violation.rule === 'merchant') others.push(violation.message);
        else others.push(violation.rule === 'limit' ? t.fieldError.limit : violation.rule === 'state' ? t.fieldError.state : t.genericError);
      }
      if (Object.keys(errors).length > 0) {
        for (const field of Object.keys(errors)) this.#touched.add(field as FieldName);
        this.#set({ errors, submitCount: this.#state.submitCount + 1, alert: others[0] });
        this.#announce(t.formHasErrors(Object.keys(errors).length, (n) => this.#localize.number(n)));
        return;
      }
      if (configSetting) {
        this.#set({ step: { kind: 'config-error', setting: configSetting } });
        return;
      }
      this.#set({ alert: others[0] ?? t.genericError });
      return;
    }
    this.#set({ alert: this.#alertFor(envelope) });
  }

  /** What the payer reads for an envelope that is neither a success nor field errors. */
  #alertFor(envelope: Envelope): string {
    const t = this.#localize.term;
    const data = (envelope.data ?? {}) as { reason?: unknown; retryAfterSeconds?: unknown };
    if (envelope.code === '02000' && typeof data.reason === 'string') {
      // The kit refused this checkout's proof: only a new page (a new token) helps.
      return data.reason === 'expired' ? t.checkoutExpired : t.checkoutRefused;
    }
    if (envelope.code === 'TOO_MANY_REQUESTS') {
      const seconds = typeof data.retryAfterSeconds === 'number' && data.retryAfterSeconds > 0 ? data.retryAfterSeconds : 30;
      return t.tooMany(seconds, (n) => this.#localize.number(n));
    }
    const retryable = isRetryable(envelope.code);
    return envelope.code === '50003' || (isErrorCode(envelope.code) && retryable) ? t.serviceError : t.genericError;
  }

  #refusePrivateKey(): void {
    this.#configProblem = 'private-key';
    this.#emitError('CONFIG', 'the element never takes a private key: keep it on your server, in the merchant kit', false);
    console.error('<svc-checkout>: a private key was given to the element and ignored. Keep it on your server.');
  }
}

/**
 * What a create body tells about its order, whatever the answer: the terminal a POS order waits at (its next
 * action is always the swipe), and where a reference code was sent (contacts masked).
 */
function knownFromCreate(
  method: PayMethod,
  body: Record<string, unknown>,
): Pick<ActiveOrder, 'sn' | 'notifyMethod' | 'maskedEmail' | 'maskedMobile'> & { actionType?: 'SWIPE_CARD' } {
  if (method === 'Pos') return { sn: body['sn'] as string, actionType: 'SWIPE_CARD' };
  if (method !== 'ReferenceCode') return {};
  const notify = (body['notify'] ?? {}) as { notifyMethod?: NotifyMethod; notifyUserEmail?: string; notifyUserMobile?: string };
  return {
    notifyMethod: notify.notifyMethod ?? 'BOTH',
    maskedEmail: notify.notifyUserEmail ? maskEmail(notify.notifyUserEmail) : undefined,
    maskedMobile: notify.notifyUserMobile ? maskMobile(notify.notifyUserMobile) : undefined,
  };
}

/** Whether a status answer's amount (when it has one) is the amount this checkout shows. */
function sameAmount(found: { total: number | string; currency: string } | undefined, shown: { total: number; currency: string } | undefined): boolean {
  if (!found || !shown) return true;
  return Number(found.total) === shown.total && found.currency === shown.currency;
}

/**
 * Opens `url` in a new window that has no way back to this tab (reverse tabnabbing: the bank's page, or anything
 * it redirects to, could otherwise send the shop's tab to a look-alike). The window is opened empty first: a
 * `noopener` open always returns null, and the payer must still be told when the browser blocked the pop-up.
 */
function openDetached(url: string): boolean {
  const popup = window.open('', '_blank');
  if (!popup) return false;
  popup.opener = null;
  popup.location.replace(url);
  return true;
}

/**
 * Where the bank sends the payer back by default: this page when the check happens in this window; the kit's
 * small return page (which tells this tab, then closes itself) when it happens in a new one.
 */
function defaultReturnUrl(mode: 'same-window' | 'new-window', endpoint: string): string {
  if (mode === 'new-window') return new URL(`${endpoint.replace(/\/+$/, '')}${MERCHANT_PATHS.returnPage}`, window.location.href).href;
  const url = new URL(window.location.href);
  url.hash = '';
  return url.href;
}
