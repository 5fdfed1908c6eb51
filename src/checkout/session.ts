/**
 * The payment life of one checkout, with no view: configure it, subscribe to its state, send it the payer's
 * commands, listen to its events. `<svc-checkout>` is one view of it; a merchant's own UI can be another.
 *
 * The session creates the order through the merchant's endpoint, finds it again when an answer was lost,
 * resumes it after a reload or 3-D Secure, sends codes, follows the order's status with `StatusPoller`, and
 * reports each change as plain data. The clock, timers, visibility, storage and network come from its
 * `CheckoutEnvironment`.
 */
import {
  attemptReference,
  CLIENT_ERROR_CODES,
  isCreateOutcomeUnknown,
  isDuplicateReference,
  isHttpUrl,
  isPaymentStatus,
  isRetryable,
  isSuccess,
  isTerminalStatus,
  MERCHANT_PATHS,
  OTP_REQUEST,
  parseCheckoutToken,
  PIN_REQUEST,
  toAsciiDigits,
  validate,
  validateCreateRequest,
  violationsOf,
  type CashierStatusData,
  type CheckoutTokenClaims,
  type CreatePaymentData,
  type Envelope,
  type PayMethod,
  type PaymentStatus,
  type StreamSchedule,
  type Violation,
} from '../core/index.js';
import { CONFIG_SOURCES, REFUSED_SETTINGS } from './config-sources.js';
import { resolveConfig, type CheckoutConfig, type CheckoutSettings } from './config.js';
import { EndpointClient, EndpointError } from './endpoint-client.js';
import { defaultEnvironment, type CheckoutEnvironment } from './environment.js';
import { CODE_FIELDS } from './code-fields.js';
import { formFieldOf, METHOD_FIELDS, type FieldName } from './fields.js';
import { StatusFollower, type FollowerStreamHandlers, type FollowMode } from './follower.js';
import { DEFAULT_POLL_INTERVAL_MS, StatusPoller } from './poller.js';
import { openStatusStream, type StatusStream, type StatusStreamFetch } from './status-stream.js';
import { SavedCheckoutStore, storageKeyOf, type SavedCheckout } from './storage.js';
import { formStateOf, IDLE_STATE, prefilled } from './first-frame.js';
import {
  applyStatus,
  messageForEnvelope,
  orderFromCreate,
  orderFromStatus,
  phaseOf,
  sameAmount,
  waitMessage,
  waitReasonOf,
  type StatusData,
  transportMessageOf,
} from './transitions.js';
import { orderOf, type ActiveOrder, type CheckoutEvent, type CheckoutState, type FieldError, type Message, type Phase, type WaitReason } from './state.js';

const RESEND_WAIT_SECONDS = 30;
/** Failed status checks in a row before the payer is told the status cannot be checked. */
const STATUS_FAILURES_BEFORE_NOTICE = 3;
/** A deadline the kit reports this far from the one the page has moves it (less is the answer's own travel). */
const EXPIRY_DRIFT_MS = 2_000;
/** The longest a `before-redirect` listener may hold the redirect. */
const REDIRECT_HOLD_MS = 10_000;


export type { CheckoutSettings } from './config.js';

/** A checkout token's claims, checked with their rules (the kit checks its tag). */
function checkedClaims(token: string): CheckoutTokenClaims | undefined {
  const parsed = parseCheckoutToken(token);
  return parsed.ok ? parsed.token.claims : undefined;
}

type Listener<T> = (value: T) => void;


export class CheckoutSession {
  readonly #env: CheckoutEnvironment;
  /** Follows the order: through the kit's status stream, or by polling when the stream cannot work. */
  readonly #follower: StatusFollower;
  readonly #stateListeners = new Set<Listener<CheckoutState>>();
  readonly #eventListeners = new Set<Listener<CheckoutEvent>>();
  #settings: CheckoutSettings = {};
  #config: CheckoutConfig | undefined;
  #problem: string | undefined;
  #state: CheckoutState = IDLE_STATE;
  #touched = new Set<FieldName>();
  /** Field errors the service reported, kept until the payer edits the field. */
  #serverErrors = new Map<FieldName, FieldError>();
  #store: SavedCheckoutStore | undefined;
  #saved: SavedCheckout | undefined;
  #initializedFor: string | undefined;
  #submitting: Promise<void> | undefined;
  #statusRequest: { reference: string; promise: Promise<{ envelope: Envelope<CashierStatusData>; expiresIn?: number }> } | undefined;
  /** Order tokens the kit handed out with status answers, by reference (an order found by its reference). */
  readonly #vouched = new Map<string, string>();
  #statusFailures = 0;
  #resendAllowedAt = 0;
  #resendTimer: unknown;
  #active = false;
  #stopReturns: (() => void) | undefined;
  #disposed = false;

  constructor(settings?: CheckoutSettings, options: { environment?: Partial<CheckoutEnvironment> } = {}) {
    this.#env = defaultEnvironment(options.environment);
    this.#follower = new StatusFollower({
      poller: new StatusPoller({
        check: (signal) => this.#checkStatus(signal),
        onExpired: () => this.#expireLocally(),
        interval: () => (this.#settings.pollInterval && this.#settings.pollInterval > 0 ? this.#settings.pollInterval : DEFAULT_POLL_INTERVAL_MS),
        environment: this.#env,
      }),
      openStream: (handlers) => this.#openStream(handlers),
      onStatus: (status) => {
        if (status.orderToken) this.#vouched.set(status.reference, status.orderToken);
        this.#observeStatus(status);
      },
      onExpired: () => this.#expireLocally(),
      environment: this.#env,
    });
    if (settings) {
      this.configure(settings);
      this.resume();
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Observing

  get state(): CheckoutState {
    return this.#state;
  }

  /** How the order is followed now: through the kit's status stream, by polling, or not at all. */
  get following(): FollowMode {
    return this.#follower.mode;
  }

  /** The resolved configuration (amount, merchant, methods…), once configured. */
  get config(): CheckoutConfig | undefined {
    return this.#config;
  }

  /** Calls back with the state after every change; returns the way to stop. */
  subscribe(listener: Listener<CheckoutState>): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  /** Calls back with every event (`CheckoutEvent`); returns the way to stop. */
  on(listener: Listener<CheckoutEvent>): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Configuring and running

  /**
   * Sets what the checkout is for. The first call, a new order (another token or reference), or settings that
   * arrived late and are now complete, pick up where that order stands (resuming it from storage).
   */
  configure(settings: CheckoutSettings): void {
    const refusedBefore = this.#settings.refused;
    this.#settings = settings;
    const resolved = resolveConfig(settings, settings.payParams, settings.userInfo, checkedClaims);
    this.#config = resolved.config;
    this.#problem = settings.refused ?? resolved.problem;
    this.#state = formStateOf(this.#config, settings, this.#state);
    // The payer's details may come after the first render: they fill what is still empty.
    if (settings.userInfo && this.#state.phase.kind === 'form') this.#prefill();
    const broken = Boolean(this.#problem) || this.#configViolations().length > 0;
    const kind = this.#state.phase.kind;
    if (this.#storageKey() !== this.#initializedFor || (kind === 'config-error' && !broken) || (kind === 'form' && broken) || kind === 'idle') {
      this.#initialize();
      return;
    }
    // A setting refused while an order is under way is said, and the order goes on (the payer may be at the terminal).
    if (settings.refused && settings.refused !== refusedBefore) this.#configError(settings.refused);
    this.#notify();
  }

  /** The host is on screen: polling and the resend countdown run. A session starts paused until this call. */
  resume(): void {
    if (this.#active || this.#disposed) return;
    this.#active = true;
    this.#follower.connect();
    if (this.#resendAllowedAt > this.#env.now()) this.#tickResendTimer();
    this.#stopReturns = this.#env.onReturn?.(() => {
      const order = orderOf(this.#state.phase);
      if (order?.actionType === 'REDIRECT_3DS' && !isTerminalStatus(order.status)) void this.#follower.checkNow();
    });
  }

  /** The host left the screen: polling, timers and listeners stop until `resume()`. */
  pause(): void {
    if (!this.#active) return;
    this.#active = false;
    this.#follower.disconnect();
    this.#stopResendTimer();
    this.#stopReturns?.();
    this.#stopReturns = undefined;
  }

  /** Stops everything for good. */
  dispose(): void {
    this.pause();
    this.#follower.stop();
    this.#disposed = true;
    this.#stateListeners.clear();
    this.#eventListeners.clear();
  }

  // ---------------------------------------------------------------------------------------------------------
  // The payer's commands

  selectMethod(method: PayMethod): void {
    if (!this.#config?.methods.includes(method) || this.#state.phase.kind !== 'form' || this.#state.busy) return;
    this.#touched.clear();
    this.#serverErrors.clear();
    this.#set({ method, errors: {}, alert: undefined });
    this.#emitChange();
  }

  /** A field's new value. Fixing a field clears its error at once; new errors wait for `blur` or `submit`. */
  input(name: FieldName, value: string): void {
    this.#serverErrors.delete(name);
    const method = this.#state.method;
    const values = { ...this.#state.values, [method]: { ...this.#state.values[method], [name]: value } };
    this.#state = { ...this.#state, values };
    if (this.#state.errors[name]) this.#showErrors(false);
    else this.#notify();
    this.#emitChange();
  }

  /** The payer left a field: its error, if any, shows. */
  blur(name: FieldName): void {
    if (this.#state.phase.kind !== 'form') return;
    this.#touched.add(name);
    this.#showErrors(false);
  }

  /** Sends the form of the chosen method. A second call while one is in flight returns the same promise. */
  submit(): Promise<void> {
    if (this.#submitting) return this.#submitting;
    this.#submitting = this.#create().finally(() => {
      this.#submitting = undefined;
    });
    return this.#submitting;
  }

  /** Sends the OTP or PIN; resolves to whether it was sent (a code refused before sending is kept, to be corrected). */
  async submitCode(code: string): Promise<boolean> {
    const order = orderOf(this.#state.phase);
    if (!order || this.#state.busy) return false;
    const actionType = order.actionType === 'INPUT_PIN' ? 'INPUT_PIN' : 'INPUT_OTP';
    const field = CODE_FIELDS[actionType];
    const body = { country: order.country, orderNo: order.orderNo, [field.name]: toAsciiDigits(code).trim() };
    const checked = validate(actionType === 'INPUT_PIN' ? PIN_REQUEST : OTP_REQUEST, body);
    if (!checked.ok) {
      const violation = checked.violations.find((item) => item.field === field.name) ?? (checked.violations[0] as Violation);
      this.#set({ errors: { [field.name]: { rule: violation.rule } }, submitCount: this.#state.submitCount + 1 });
      return false;
    }
    this.#set({ busy: true, errors: {}, alert: undefined, notice: undefined });
    try {
      const { envelope } = await this.#client().post<CreatePaymentData>(actionType === 'INPUT_PIN' ? 'pin' : 'otp', checked.value, { orderToken: order.token });
      this.#set({ busy: false });
      if (isSuccess(envelope) && envelope.data) {
        this.#observeStatus(envelope.data);
        return true;
      }
      const violation = violationsOf(envelope).find((item) => item.field === field.name);
      if (violation) {
        const left = /(\d+)\s+attempts?\s+left/.exec(violation.message)?.[1];
        this.#set({ errors: { [field.name]: { rule: violation.rule, ...(left ? { left: Number(left) } : {}) } }, submitCount: this.#state.submitCount + 1 });
        this.#announce({ kind: 'form-errors', count: 1 });
        return true;
      }
      this.#envelopeError(envelope);
    } catch (error) {
      this.#set({ busy: false });
      this.#transportError(error);
    }
    return true;
  }

  async resendOtp(): Promise<void> {
    const order = orderOf(this.#state.phase);
    if (!order || this.#state.busy || this.#state.resendWait > 0) return;
    this.#set({ busy: true, alert: undefined, notice: undefined });
    try {
      const { envelope } = await this.#client().post('resendOtp', { country: order.country, orderNo: order.orderNo }, { orderToken: order.token });
      this.#set({ busy: false });
      if (isSuccess(envelope)) {
        // A new code is on its way: what was said of the last one no longer holds.
        this.#set({ notice: { kind: 'resent' }, errors: {} });
        this.#announce({ kind: 'resent' });
        this.#resendAllowedAt = this.#env.now() + RESEND_WAIT_SECONDS * 1000;
        this.#tickResendTimer();
        return;
      }
      this.#envelopeError(envelope);
    } catch (error) {
      this.#set({ busy: false });
      this.#transportError(error);
    }
  }

  /** Goes to the bank's 3-D Secure page (again): in this window, or in a new one as configured. */
  openRedirect(): void {
    const order = orderOf(this.#state.phase);
    if (order?.actionType !== 'REDIRECT_3DS' || !order.redirectUrl || !isHttpUrl(order.redirectUrl)) return;
    if (this.#state.redirectMode === 'same-window') {
      this.#saveOrder({ ...order, redirected: true });
      this.#env.navigate(order.redirectUrl);
      return;
    }
    const blocked = !this.#env.openWindow(order.redirectUrl);
    const redirected = { ...order, redirected: !blocked || order.redirected };
    this.#saveOrder(redirected);
    this.#set({ phase: { kind: 'action', order: { ...redirected, actionType: 'REDIRECT_3DS' } }, redirectBlocked: blocked, alert: blocked ? { kind: 'redirect-blocked' } : undefined });
  }

  /**
   * Leaves the current order (it is not cancelled: it expires, or is paid after all) for a new attempt with the
   * next reference, and shows the form again. Does nothing while a create or the search for its lost answer
   * is under way: a new reference then could make a second order.
   */
  leave(): void {
    if (this.#state.busy || this.#state.phase.kind === 'looking-up') return;
    this.#follower.stop();
    this.#stopResendTimer();
    if (!this.#saved || this.#saved.order || this.#saved.creating) this.#nextAttempt();
    this.#touched.clear();
    this.#serverErrors.clear();
    this.#set({ phase: { kind: 'form' }, alert: undefined, errors: {}, busy: false, notice: undefined, resendWait: 0 });
    this.#emitChange();
  }

  /** Asks for the order's status now; shares the request in flight. Resolves to the status envelope. */
  async checkNow(): Promise<Envelope<CashierStatusData>> {
    const reference = orderOf(this.#state.phase)?.reference ?? this.#saved?.creating?.reference ?? this.#attemptReference();
    const { envelope } = await this.#fetchStatus(reference);
    if (isSuccess(envelope) && envelope.data) this.#observeStatus(envelope.data);
    return envelope;
  }

  /** A view's own passing message (the code was copied). */
  note(message: Message): void {
    this.#set({ notice: message });
    this.#announce(message);
  }

  // ---------------------------------------------------------------------------------------------------------
  // State

  #set(patch: Partial<CheckoutState>): void {
    this.#state = { ...this.#state, ...patch };
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#stateListeners]) listener(this.#state);
  }

  #emit(event: CheckoutEvent): void {
    for (const listener of [...this.#eventListeners]) listener(event);
  }

  #announce(detail: Extract<CheckoutEvent, { type: 'announce' }>['detail']): void {
    this.#emit({ type: 'announce', detail });
  }

  #initialize(): void {
    const config = this.#config as CheckoutConfig;
    const key = this.#storageKey();
    this.#initializedFor = key;
    this.#follower.stop();
    this.#stopResendTimer();
    this.#touched.clear();
    this.#serverErrors.clear();
    this.#state = { ...this.#state, alert: undefined, notice: undefined, errors: {}, busy: false, resendWait: 0 };
    const setting = this.#problem ?? this.#configViolations().map((violation) => CONFIG_SOURCES[violation.field] ?? violation.field)[0];
    if (setting) {
      this.#set({ phase: { kind: 'config-error', setting } });
      const violation = this.#problem ? undefined : this.#configViolations()[0];
      this.#configError(setting, violation);
      return;
    }
    this.#store = new SavedCheckoutStore(key, this.#env.storage);
    this.#saved = this.#store.load();
    this.#prefill();
    let resumed = false;
    if (this.#saved?.order) {
      resumed = true;
      this.#show(this.#saved.order, { resumed: true, quiet: true });
    } else if (this.#saved?.creating || this.#settings.statusOnly) {
      resumed = true;
      // Nothing to press while the order is looked for: a second create would race the recovery.
      this.#set({ phase: { kind: 'looking-up' }, busy: true });
      const lookup = this.#saved?.creating ? this.#recoverCreate(this.#saved.creating.reference) : this.#findLatestAttempt();
      void lookup.finally(() => this.#set({ busy: false }));
    } else {
      this.#saved ??= { version: 1, base: this.#baseReference(), attempt: 1 };
      this.#store.save(this.#saved);
      this.#set({ phase: { kind: 'form' } });
    }
    this.#emit({ type: 'ready', detail: { methods: [...config.methods], resumed } });
  }

  /** The payer's details the merchant already knows fill the reference code form. */
  #prefill(): void {
    this.#state = prefilled(this.#config as CheckoutConfig, this.#settings, this.#state);
  }


  #storageKey(): string {
    return storageKeyOf(this.#config as CheckoutConfig, this.#env.pageUrl());
  }


  #baseReference(): string {
    const config = this.#config as CheckoutConfig;
    if (config.reference) return config.reference;
    const random = crypto.getRandomValues(new Uint32Array(2));
    return `svc-${this.#env.now().toString(36)}-${Array.from(random, (n) => n.toString(36)).join('')}`;
  }

  /** The reference of the current attempt: the base, then base-2, base-3, … within 64 characters. */
  #attemptReference(): string {
    const saved = this.#saved ?? { base: this.#baseReference(), attempt: 1 };
    return attemptReference(saved.base, saved.attempt);
  }

  #client(): EndpointClient {
    const config = this.#config as CheckoutConfig;
    return new EndpointClient({
      endpoint: config.endpoint ?? '',
      checkoutToken: config.checkoutToken,
      credentials: this.#settings.credentials ?? 'same-origin',
      fetch: this.#env.fetch,
    });
  }

  #saveOrder(order: ActiveOrder | undefined): void {
    this.#saved = { ...(this.#saved as SavedCheckout), creating: undefined, order };
    this.#store?.save(this.#saved);
  }

  /** Moves on to the next attempt's reference, keeping what the payer typed. */
  #nextAttempt(): void {
    const saved = this.#saved ?? { version: 1 as const, base: this.#baseReference(), attempt: 1 };
    this.#saved = { version: 1, base: saved.base, attempt: saved.attempt + 1 };
    this.#store?.save(this.#saved);
  }

  #clearCreating(): void {
    if (!this.#saved?.creating) return;
    this.#saved = { ...this.#saved, creating: undefined };
    this.#store?.save(this.#saved);
  }

  // ---------------------------------------------------------------------------------------------------------
  // The form

  /** The create request the form would send now. */
  #createBody(): Record<string, unknown> {
    const config = this.#config as CheckoutConfig;
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
          returnUrl: config.returnUrl ?? this.#defaultReturnUrl(),
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

  /**
   * Where the bank sends the payer back by default: this page when the check happens in this window; the kit's
   * small return page (which tells this tab, then closes itself) when it happens in a new one.
   */
  #defaultReturnUrl(): string {
    const page = new URL(this.#env.pageUrl());
    if (this.#state.redirectMode === 'new-window') {
      const endpoint = ((this.#config as CheckoutConfig).endpoint ?? '').replace(/\/+$/, '');
      return new URL(`${endpoint}${MERCHANT_PATHS.returnPage}`, page.href).href;
    }
    page.hash = '';
    return page.href;
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
    const errors: Partial<Record<FieldName, FieldError>> = {};
    for (const [field, violation] of violations) {
      if (all || this.#touched.has(field)) errors[field] = { rule: violation.rule };
    }
    // What the service said about a field stands until the payer changes that field.
    for (const [field, error] of this.#serverErrors) errors[field] ??= error;
    this.#set({ errors });
    return violations;
  }

  #emitChange(): void {
    const complete = this.#payerViolations().size === 0 && this.#configViolations().length === 0;
    this.#emit({ type: 'change', detail: { payMethod: this.#state.method, complete } });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Create

  async #create(retried = false): Promise<void> {
    if (this.#state.phase.kind !== 'form' || this.#problem) return;
    for (const field of METHOD_FIELDS[this.#state.method]) this.#touched.add(field.name);
    const violations = this.#showErrors(true);
    this.#set({ submitCount: this.#state.submitCount + 1, alert: undefined });
    if (violations.size > 0) {
      this.#announce({ kind: 'form-errors', count: violations.size });
      return;
    }
    const checked = validateCreateRequest(this.#createBody());
    if (!checked.ok) {
      const first = checked.violations[0] as Violation;
      const setting = CONFIG_SOURCES[first.field] ?? first.field;
      this.#set({ phase: { kind: 'config-error', setting } });
      this.#configError(setting, first);
      return;
    }
    const body = checked.value;
    const method = this.#state.method;
    this.#saved = { ...(this.#saved ?? { version: 1, base: this.#baseReference(), attempt: 1 }), creating: { reference: body.reference, payMethod: method } };
    this.#store?.save(this.#saved);
    this.#set({ busy: true });
    this.#announce({ kind: 'processing' });
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
    this.#emit({ type: 'http-response', detail: envelope });
    if (isSuccess(envelope) && envelope.data) {
      this.#set({ busy: false });
      const config = this.#config as CheckoutConfig;
      const order = orderFromCreate(
        envelope.data,
        { method, body: sent, country: config.countryCode ?? '', amount: this.#state.amount },
        { expiresIn, token: orderToken, now: this.#env.now() },
      );
      this.#saveOrder(order);
      this.#forgetSecrets(method);
      this.#emitPayResult(order);
      this.#show(order, { resumed: false });
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
  async #recoverCreate(reference: string, options: { duplicate?: boolean; sent?: Record<string, unknown> } = {}): Promise<'resolved' | 'spent' | 'absent'> {
    let envelope: Envelope<CashierStatusData>;
    try {
      ({ envelope } = await this.#fetchStatus(reference));
    } catch (error) {
      // Still unknown: `creating` stays saved, so a retry sends the same reference and a reload looks again.
      this.#set({ phase: { kind: 'form' } });
      this.#transportError(error);
      return 'resolved';
    }
    const data = envelope.data;
    if (!isSuccess(envelope) || !data || !isPaymentStatus(data.status)) {
      // No such order: the create never arrived, and the same reference may be sent again.
      this.#clearCreating();
      this.#set({ phase: { kind: 'form' } });
      if (options.duplicate) this.#envelopeError(envelope);
      return 'absent';
    }
    // An order of this reference for another amount is not the one the payer is looking at: never shown as theirs.
    if (!sameAmount(data.amount, this.#state.amount)) {
      this.#clearCreating();
      this.#set({ phase: { kind: 'result', outcome: 'MISMATCH' }, busy: false, alert: undefined, notice: undefined });
      this.#announce({ kind: 'result', outcome: 'MISMATCH' });
      this.#emitError('ORDER_MISMATCH', CLIENT_ERROR_CODES.ORDER_MISMATCH.message, false);
      return 'resolved';
    }
    // A spent reference's order is not this attempt's: the payer's secrets are still needed for the next one.
    if ((data.status === 'FAIL' || data.status === 'CLOSE') && options.duplicate) return 'spent';
    const payMethod = this.#saved?.creating?.payMethod ?? this.#state.method;
    const order = orderFromStatus(
      data as StatusData & { status: PaymentStatus },
      { reference, payMethod, country: (this.#config as CheckoutConfig).countryCode ?? '', shownAmount: this.#state.amount, token: this.#vouched.get(reference) },
      options,
    );
    this.#forgetSecrets(payMethod);
    this.#saveOrder(order);
    if (options.sent || (data.status !== 'FAIL' && data.status !== 'CLOSE')) this.#emitPayResult(order);
    // A POS order always waits for its card at the terminal this page named; others wait for their status.
    this.#show(order, { resumed: true, wait: order.actionType !== 'SWIPE_CARD' });
    return 'resolved';
  }

  /**
   * A page that did not create the order (a thank-you page, another tab): the checkout token's latest attempt
   * that the service knows, followed from here.
   */
  async #findLatestAttempt(): Promise<void> {
    const config = this.#config as CheckoutConfig;
    let found: { data: CashierStatusData; reference: string } | undefined;
    for (let attempt = 1; attempt <= config.attempts; attempt += 1) {
      const reference = attemptReference(this.#saved?.base ?? this.#baseReference(), attempt);
      let envelope: Envelope<CashierStatusData>;
      try {
        ({ envelope } = await this.#fetchStatus(reference));
      } catch (error) {
        this.#transportError(error);
        break;
      }
      if (!isSuccess(envelope) || !envelope.data || !isPaymentStatus(envelope.data.status)) break;
      found = { data: envelope.data, reference };
    }
    if (!found) {
      this.#set({ phase: { kind: 'looking-up' }, alert: this.#state.alert ?? { kind: 'in-progress' } });
      return;
    }
    const order = orderFromStatus(
      found.data as StatusData & { status: PaymentStatus },
      { reference: found.reference, payMethod: 'Pos', country: config.countryCode ?? '', shownAmount: this.#state.amount, token: this.#vouched.get(found.reference) },
      {},
    );
    const known = { ...order, payMethod: (found.data as { payMethod?: PayMethod }).payMethod ?? order.payMethod };
    this.#emitPayResult(known);
    this.#show(known, { resumed: true, wait: true, reason: 'status-only' });
  }

  /** The order exists, so the service has the payer's secrets: the session forgets them (a retry asks again). */
  #forgetSecrets(method: PayMethod): void {
    const secrets = METHOD_FIELDS[method].filter((field) => field.secret);
    if (secrets.length === 0) return;
    const kept = { ...this.#state.values[method] };
    for (const field of secrets) delete kept[field.name];
    this.#set({ values: { ...this.#state.values, [method]: kept } });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Showing an order

  /**
   * Shows an order where it stands: its result, its next step, or a wait. `resumed`: it was found again (a
   * reload, a lost answer), so polling checks at once and a 3-D Secure page is not opened again. `wait`: its
   * next step is not known here.
   */
  #show(order: ActiveOrder, how: { resumed: boolean; wait?: boolean; reason?: WaitReason; quiet?: boolean }): void {
    this.#state = { ...this.#state, method: order.payMethod };
    if (isTerminalStatus(order.status)) {
      this.#showResult(order, { quiet: how.quiet });
      return;
    }
    const phase = how.wait || !order.actionType ? phaseOf(order, how.reason ?? waitReasonOf(order)) : phaseOf(order);
    if (phase.kind === 'waiting') {
      const alert = waitMessage(order, phase.reason);
      this.#set({ phase, alert, notice: undefined, errors: {} });
      if (alert) this.#announce(alert);
      this.#follower.start({ expiresAt: order.expiresAt, checkFirst: true });
      return;
    }
    if (phase.kind !== 'action') return;
    this.#set({ phase, alert: undefined, notice: undefined, errors: {} });
    const { actionType } = phase.order;
    this.#emit({
      type: 'action',
      detail: {
        actionType,
        orderNo: order.orderNo,
        reference: order.reference,
        ...(order.redirectUrl ? { redirectUrl: order.redirectUrl } : {}),
        ...(order.referenceCode ? { referenceCode: order.referenceCode } : {}),
      },
    });
    this.#announce({ kind: 'step', actionType });
    if (actionType === 'INPUT_OTP' && !how.resumed) {
      // The code was just sent: "send it again" waits as long as after a resend.
      this.#resendAllowedAt = this.#env.now() + RESEND_WAIT_SECONDS * 1000;
      if (this.#active) this.#tickResendTimer();
    }
    if (actionType === 'REDIRECT_3DS' && !how.resumed) {
      if (!order.redirectUrl || !isHttpUrl(order.redirectUrl)) {
        this.#set({ alert: { kind: 'generic' } });
        this.#emitError('REDIRECT_URL', 'the 3-D Secure address is not an http(s) URL', false);
        return;
      }
      void this.#leaveForBank(phase.order);
    }
    this.#follower.start({ expiresAt: order.expiresAt, checkFirst: how.resumed });
  }

  /** Tells listeners the payer is about to leave (they may hold it, or keep the payer here), then goes. */
  async #leaveForBank(order: ActiveOrder & { actionType: 'REDIRECT_3DS' | string }): Promise<void> {
    const holds: Promise<unknown>[] = [];
    let prevented = false;
    this.#emit({
      type: 'before-redirect',
      detail: { orderNo: order.orderNo, reference: order.reference, redirectUrl: order.redirectUrl as string },
      waitUntil: (promise) => void holds.push(promise),
      preventDefault: () => {
        prevented = true;
      },
    });
    if (holds.length > 0) {
      let timer: unknown;
      const limit = new Promise((_, reject) => {
        timer = this.#env.timers.setTimeout(() => reject(new Error('held too long')), REDIRECT_HOLD_MS);
      });
      try {
        await Promise.race([Promise.all(holds), limit]);
      } catch {
        prevented = true;
      } finally {
        this.#env.timers.clearTimeout(timer);
      }
    }
    // Still this order's step, and still wanted (the host may have left the page: the order is saved).
    const current = orderOf(this.#state.phase);
    if (prevented || !this.#active || current?.orderNo !== order.orderNo || current.actionType !== 'REDIRECT_3DS') return;
    this.openRedirect();
  }

  #showResult(order: ActiveOrder, options: { quiet?: boolean } = {}): void {
    this.#follower.stop();
    this.#stopResendTimer();
    const phase = phaseOf(order);
    this.#set({ phase, busy: false, alert: undefined, notice: undefined, resendWait: 0 });
    if (options.quiet || phase.kind !== 'result') return;
    this.#announce({ kind: 'result', outcome: phase.outcome });
    if (phase.outcome === 'CLOSE') this.#emit({ type: 'expired', detail: { orderNo: order.orderNo, reference: order.reference } });
  }

  #expireLocally(): void {
    const order = orderOf(this.#state.phase);
    if (!order || isTerminalStatus(order.status)) return;
    const expired: ActiveOrder = { ...order, status: 'CLOSE' };
    this.#saveOrder(expired);
    this.#showResult(expired);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Status

  /** The followed order's status stream, proved as its status requests are; none when turned off. */
  #openStream(handlers: FollowerStreamHandlers): StatusStream | undefined {
    const order = orderOf(this.#state.phase);
    const config = this.#config;
    if (!order || !config || this.#settings.liveStatus === false) return undefined;
    const orderToken = order.token ?? this.#vouched.get(order.reference);
    const proof = orderToken ? { orderToken } : config.checkoutToken ? { checkoutToken: config.checkoutToken, reference: order.reference } : undefined;
    if (!proof) return undefined;
    const reference = order.reference;
    return openStatusStream({
      endpoint: config.endpoint ?? '',
      ...proof,
      // Proved by the order's own token, the kit's schedule says how long the order has left.
      ...(orderToken ? { onSchedule: (schedule: StreamSchedule) => this.#resyncExpiry(reference, this.#env.now() + schedule.durationMs) } : {}),
      fetch: this.#env.fetch as unknown as StatusStreamFetch,
      timers: this.#env.timers,
      credentials: this.#settings.credentials ?? 'same-origin',
      ...handlers,
    });
  }

  /**
   * One status request at a time for the whole session: the poller and `checkNow()` share it. The order's own
   * token proves it when the session has one; otherwise the checkout token covers the reference, and the
   * answer brings the order's token.
   */
  #fetchStatus(reference: string, signal?: AbortSignal): Promise<{ envelope: Envelope<CashierStatusData>; expiresIn?: number }> {
    if (this.#statusRequest?.reference === reference) return this.#statusRequest.promise;
    const current = orderOf(this.#state.phase);
    const order = current?.reference === reference ? current : undefined;
    const country = order?.country ?? (this.#config as CheckoutConfig).countryCode ?? '';
    const promise = this.#client()
      .post<CashierStatusData>('status', { country, reference }, { signal, orderToken: order?.token ?? this.#vouched.get(reference) })
      .then((answer) => {
        if (answer.orderToken) this.#vouched.set(reference, answer.orderToken);
        return { envelope: answer.envelope, ...(answer.expiresIn !== undefined ? { expiresIn: answer.expiresIn } : {}) };
      })
      .finally(() => {
        if (this.#statusRequest?.promise === promise) this.#statusRequest = undefined;
      });
    this.#statusRequest = { reference, promise };
    return promise;
  }

  async #checkStatus(signal: AbortSignal): Promise<PaymentStatus | undefined> {
    const order = orderOf(this.#state.phase);
    if (!order) return undefined;
    let envelope: Envelope<CashierStatusData> | undefined;
    let expiresIn: number | undefined;
    try {
      ({ envelope, expiresIn } = await this.#fetchStatus(order.reference, signal));
    } catch {
      envelope = undefined;
    }
    if (signal.aborted) return undefined;
    if (!envelope || !isSuccess(envelope) || !envelope.data || !isPaymentStatus(envelope.data.status)) {
      this.#statusFailures += 1;
      if (this.#statusFailures === STATUS_FAILURES_BEFORE_NOTICE) {
        this.#set({ notice: { kind: 'status-unknown' } });
        this.#announce({ kind: 'status-unknown' });
        this.#emitError('STATUS_UNKNOWN', CLIENT_ERROR_CODES.STATUS_UNKNOWN.message, true);
      }
      return undefined;
    }
    if (this.#statusFailures >= STATUS_FAILURES_BEFORE_NOTICE) this.#set({ notice: undefined });
    this.#statusFailures = 0;
    this.#observeStatus(envelope.data);
    if (expiresIn !== undefined) this.#resyncExpiry(order.reference, this.#env.now() + expiresIn * 1000);
    return envelope.data.status;
  }

  /**
   * The kit said how long the order has left (each status answer of a pending order does): its deadline and
   * countdown follow, should the device's clock or a sleeping tab have drifted from the kit's.
   */
  #resyncExpiry(reference: string, expiresAt: number): void {
    const order = orderOf(this.#state.phase);
    if (!order || order.reference !== reference || isTerminalStatus(order.status)) return;
    if (order.expiresAt !== undefined && Math.abs(order.expiresAt - expiresAt) < EXPIRY_DRIFT_MS) return;
    const updated = { ...order, expiresAt };
    this.#saveOrder(updated);
    this.#set({ phase: { ...this.#state.phase, order: updated } as Phase });
    this.#follower.retime(expiresAt);
  }

  /** Applies a status seen in any answer; a change is reported, and a terminal one ends the flow. */
  #observeStatus(data: StatusData): void {
    const order = orderOf(this.#state.phase);
    if (!order) return;
    const applied = applyStatus(order, data);
    if (!applied) return;
    const updated = { ...applied.order, token: applied.order.token ?? this.#vouched.get(order.reference) };
    this.#saveOrder(updated);
    if (applied.statusChanged) this.#emitPayResult(updated);
    if (isTerminalStatus(updated.status)) {
      this.#showResult(updated);
      return;
    }
    if (applied.actionChanged) this.#show(updated, { resumed: false });
    else this.#set({ phase: { ...this.#state.phase, order: updated } as Phase });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Resend countdown

  /** Counts down to `#resendAllowedAt` from the clock, so that a pause (the host moved) loses nothing. */
  #tickResendTimer(): void {
    this.#stopResendTimer();
    const left = Math.max(0, Math.ceil((this.#resendAllowedAt - this.#env.now()) / 1000));
    if (left !== this.#state.resendWait) this.#set({ resendWait: left });
    if (left > 0) this.#resendTimer = this.#env.timers.setTimeout(() => this.#tickResendTimer(), 1000);
  }

  #stopResendTimer(): void {
    if (this.#resendTimer !== undefined) this.#env.timers.clearTimeout(this.#resendTimer);
    this.#resendTimer = undefined;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Errors and events

  #emitPayResult(order: ActiveOrder): void {
    this.#emit({
      type: 'pay-result',
      detail: {
        callbackName: 'webPayCallback',
        eventName: 'svc-pay-result',
        merchantId: this.#config?.merchantId ?? '',
        orderNo: order.orderNo,
        orderStatus: order.status,
        payNo: order.orderNo,
        referenceCode: order.referenceCode ?? '',
      },
    });
    this.#announce({ kind: 'status', status: order.status });
  }

  #emitError(code: string, message: string, retryable: boolean): void {
    this.#emit({ type: 'error', detail: { code, message, retryable } });
  }

  /**
   * A checkout that is not set up correctly, by the setting at fault: a `CONFIG` error, also written to the console,
   * where its developer looks (the payer of a live checkout reads only that it is not available). Only the session's
   * own findings are written there, never words from an answer.
   */
  #configError(setting: string, violation?: Violation): void {
    const message = violation ? `${setting}: ${violation.message}` : (REFUSED_SETTINGS.get(setting) ?? `${CLIENT_ERROR_CODES.CONFIG.message}: ${setting}`);
    console.error(`svc-checkout: ${message}`);
    this.#emitError('CONFIG', message, false);
  }

  #transportError(error: unknown): void {
    if (error instanceof EndpointError) {
      this.#set({ alert: { kind: transportMessageOf(error) } });
      this.#emitError(error.code, error.message, error.retryable);
      return;
    }
    this.#set({ alert: { kind: 'generic' } });
    this.#emitError('NETWORK', error instanceof Error ? error.message : 'request failed', true);
  }

  /** An envelope that is not a success: field errors where they belong, the rest as an alert. */
  #envelopeError(envelope: Envelope): void {
    this.#emitError(envelope.code, envelope.message, isRetryable(envelope.code));
    if (envelope.code !== '02001') {
      this.#set({ alert: messageForEnvelope(envelope) });
      return;
    }
    const errors: Partial<Record<FieldName, FieldError>> = {};
    let configSetting: string | undefined;
    const others: Message[] = [];
    for (const violation of violationsOf(envelope)) {
      const field = formFieldOf(this.#state.method, violation.field);
      if (field) {
        errors[field] = violation.rule === 'merchant' ? { rule: 'merchant', text: violation.message } : { rule: violation.rule };
        this.#serverErrors.set(field, errors[field] as FieldError);
      } else if (CONFIG_SOURCES[violation.field] && violation.rule !== 'merchant') configSetting ??= CONFIG_SOURCES[violation.field];
      // The merchant's own words (an OrderRejection) are for the payer; the service's English is not.
      else if (violation.rule === 'merchant') others.push({ kind: 'merchant', text: violation.message });
      else others.push({ kind: violation.rule === 'limit' ? 'limit' : violation.rule === 'state' ? 'state' : 'generic' });
    }
    if (Object.keys(errors).length > 0) {
      for (const field of Object.keys(errors)) this.#touched.add(field as FieldName);
      this.#set({ errors, submitCount: this.#state.submitCount + 1, alert: others[0] });
      this.#announce({ kind: 'form-errors', count: Object.keys(errors).length });
      return;
    }
    if (configSetting) {
      this.#set({ phase: { kind: 'config-error', setting: configSetting } });
      return;
    }
    this.#set({ alert: others[0] ?? { kind: 'generic' } });
  }
}
