/**
 * The payment life of one checkout, with no view: configure it, subscribe to its state, send it the payer's
 * commands, listen to its events. `<svc-checkout>` is one view of it; a merchant's own UI can be another.
 *
 * What happens is decided by the machine (machine.ts): every command, answer, timer and status message goes through
 * `#dispatch` as an event, and the session runs the effects the machine asks for — requests to the merchant's
 * endpoint, following the order's status (`StatusFollower`), the page's events, leaving for the bank — and keeps
 * what must survive a reload (`savedOf`). The clock, timers, visibility, storage, network, randomness and log come
 * from its `CheckoutEnvironment`.
 */
import { isSuccess, isPaymentStatus, type CashierStatusData, type Envelope, type PaymentStatus, type StreamSchedule } from '../core/index.js';
import { RESULT_ROLES } from '../core/result-roles.js';
import { resolveConfig, type CheckoutConfig, type CheckoutSettings } from './config.js';
import { EndpointClient, EndpointError, failureOf, neverAnswered, type EndpointAnswer } from './endpoint-client.js';
import { defaultEnvironment, type CheckoutEnvironment } from './environment.js';
import type { FieldName } from './fields.js';
import { IDLE_STATE } from './first-frame.js';
import { StatusFollower, type FollowerStreamHandlers, type FollowMode } from './follower.js';
import type { IsolatedFields, IsolatedLink } from './isolated.js';
import { checkOf } from './form-check.js';
import { transition } from './machine.js';
import { TicketKeeper } from './tickets.js';
import { initialModel, orderTokenFor, savedOf, statusCallOf, statusReferenceOf, type Effect, type MachineEvent, type Model } from './model.js';
import { DEFAULT_POLL_INTERVAL_MS, StatusPoller } from './poller.js';
import { openStatusStream, type StatusStream, type StatusStreamFetch } from './status-stream.js';
import { orderOf, type CheckoutEvent, type CheckoutState, type Message } from './state.js';
import { loadSaved, storageKeyOf } from './storage.js';
import { shownClaims } from './first-frame.js';
import type { PayMethod } from '../core/pay-methods.js';

/** The longest a `before-redirect` listener may hold the redirect. */
const REDIRECT_HOLD_MS = 10_000;
/** An order the payer left while it was pending is looked at (it may still be paid) every this many poll intervals: 15 s by default. */
const LEFT_ORDERS_CHECK_INTERVALS = 6;

export type { CheckoutSettings } from './config.js';

/** What a session counts of its own work (`CheckoutSession.counts`). */
export interface SessionCounts {
  /** Events that changed the model or asked for an effect. */
  transitions: number;
  /** Times the form's create request was built and checked by the rules (once per change of what it is made from). */
  checks: number;
}

type Listener<T> = (value: T) => void;
/** An event as a command or an answer makes it; `#dispatch` stamps the moment. */
type Input = WithoutAt<MachineEvent>;
type WithoutAt<E> = E extends unknown ? Omit<E, 'at'> : never;

export class CheckoutSession {
  readonly #env: CheckoutEnvironment;
  /** Follows the order: through the kit's status stream, or by polling when the stream cannot work. */
  readonly #follower: StatusFollower;
  readonly #stateListeners = new Set<Listener<CheckoutState>>();
  readonly #eventListeners = new Set<Listener<CheckoutEvent>>();
  #model: Model = initialModel(IDLE_STATE);
  /** What was last written to storage, by key. */
  #written: string | undefined;
  /** Calls waiting for the request the payer waits on to end. */
  #idle: (() => void)[] = [];
  #submitting: Promise<void> | undefined;
  #statusRequest: { reference: string; promise: Promise<EndpointAnswer<CashierStatusData>> } | undefined;
  #ticker: unknown;
  #leftWatch: unknown;
  #stopReturns: (() => void) | undefined;
  /** The isolated frame the view attached last, while it is there. */
  #isolated: IsolatedFields | undefined;
  /** The frame attached last, until it has been given its create's proof (or there is none to give it). */
  #unbound: IsolatedFields | undefined;
  /** The tickets of its creates, where no checkout token proves them (tickets.ts). */
  readonly #tickets = new TicketKeeper((body) => this.#client().post('ticket', body), () => this.#env.now());
  #disposed = false;
  /** The last request whose fetch rejected without an answer: a code it carried never reached the kit. */
  #unanswered: number | undefined;
  readonly #stopOnline: () => void;
  /** The settings last configured, resolved (`configure`). */
  #resolved: string | undefined;
  readonly #counts: SessionCounts = { transitions: 0, checks: 0 };

  constructor(settings?: CheckoutSettings, options: { environment?: Partial<CheckoutEnvironment> } = {}) {
    this.#env = defaultEnvironment(options.environment);
    this.#follower = new StatusFollower({
      poller: new StatusPoller({
        check: (signal) => this.#poll(signal),
        onExpired: () => this.#dispatch({ type: 'expired' }),
        interval: () => this.#pollInterval(),
        environment: this.#env,
      }),
      openStream: (handlers) => this.#openStream(handlers),
      onStatus: (status) => this.#dispatch({ type: 'stream-status', status }),
      onExpired: () => this.#dispatch({ type: 'expired' }),
      environment: this.#env,
    });
    this.#stopOnline = this.#env.online.subscribe(() => this.#dispatch({ type: 'online' }));
    if (settings) {
      this.configure(settings);
      this.resume();
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Observing

  get state(): CheckoutState {
    return this.#model.state;
  }

  /** How the order is followed now: through the kit's status stream, by polling, or not at all. */
  get following(): FollowMode {
    return this.#follower.mode;
  }

  /** The resolved configuration (amount, merchant, methods…), once configured. */
  get config(): CheckoutConfig | undefined {
    return this.#model.config;
  }

  /**
   * For diagnostics and tests: how many transitions changed the model, and how many times the form's create request
   * was built and checked anew, since the session began.
   */
  get counts(): Readonly<SessionCounts> {
    return { ...this.#counts };
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
  // The host's commands

  /**
   * Sets what the checkout is for. The first call, a new order (another token or reference), or settings that
   * arrived late and are now complete, pick up where that order stands (resuming it from storage).
   */
  configure(settings: CheckoutSettings): void {
    // A checkout token's claims read as the first frame reads them, in the shape the form shows: the kit checked them
    // by their rules when it signed the token, and checks the tag that covers them at every call (docs/element.md).
    const read = resolveConfig(settings, settings.payParams, settings.userInfo, shownClaims);
    const config = read.config;
    // Without an amount and its currency there is nothing to show the payer: named at once. Their values, as every
    // field of the order, are the kit's to judge, at the create (docs/element.md, "A misconfigured attribute").
    const problem = read.problem ?? (!config.currency ? 'currency' : config.payAmount === undefined ? 'pay-amount' : undefined);
    const pageUrl = this.#env.pageUrl();
    // The same settings again (a host's update that changed none of them): nothing to read or check anew. Compared
    // resolved, as plain data: `payParams` and `userInfo` are in the configuration, whatever object brought them.
    const resolved = JSON.stringify([config, problem, pageUrl, { ...settings, payParams: undefined, userInfo: undefined }]);
    if (resolved === this.#resolved) return;
    this.#resolved = resolved;
    const key = storageKeyOf(config, pageUrl);
    const saved = loadSaved(key, this.#env.storage);
    this.#dispatch({ type: 'configure', settings, config, problem, key, saved, pageUrl, nonce: this.#env.random() });
  }

  /** The host is on screen: the order is followed and the resend countdown runs. A session starts paused until this call. */
  resume(): void {
    if (!this.#disposed) this.#dispatch({ type: 'resume' });
  }

  /** The host left the screen: following, timers and listeners stop until `resume()`. */
  pause(): void {
    this.#dispatch({ type: 'pause' });
  }

  /** Stops everything for good. */
  dispose(): void {
    this.pause();
    this.#follower.stop();
    this.#stopOnline();
    this.#disposed = true;
    // Nothing will answer now: whoever waits on a request is let go.
    for (const resolve of this.#idle.splice(0)) resolve();
    this.#stateListeners.clear();
    this.#eventListeners.clear();
  }

  // ---------------------------------------------------------------------------------------------------------
  // The payer's commands

  selectMethod(method: PayMethod): void {
    this.#dispatch({ type: 'select-method', method });
  }

  /** A field's new value. Fixing a field clears its error at once; new errors wait for `blur` or `submit`. */
  input(name: FieldName, value: string): void {
    this.#dispatch({ type: 'input', name, value });
  }

  /** The payer left a field: its error, if any, shows. */
  blur(name: FieldName): void {
    this.#dispatch({ type: 'blur', name });
  }

  /** Sends the form of the chosen method. A second call while one is in flight returns the same promise. */
  submit(): Promise<void> {
    if (this.#submitting) return this.#submitting;
    const before = this.#model.request;
    this.#dispatch({ type: 'submit' });
    if (!this.#model.request || this.#model.request === before) return Promise.resolve();
    this.#submitting = this.#whenIdle().finally(() => (this.#submitting = undefined));
    return this.#submitting;
  }

  /**
   * Sends the OTP or PIN; resolves to whether the kit answered it, any answer (a code refused before sending is kept,
   * to be corrected; so is one whose request never reached the kit, offline: nothing was sent).
   */
  async submitCode(code: string): Promise<boolean> {
    const before = this.#model.request;
    this.#dispatch({ type: 'submit-code', code });
    const request = this.#model.request;
    if (request?.kind !== 'code' || request === before) return false;
    await this.#whenIdle();
    return this.#unanswered !== request.id;
  }

  async resendOtp(): Promise<void> {
    const before = this.#model.request;
    this.#dispatch({ type: 'resend' });
    if (this.#model.request !== before) await this.#whenIdle();
  }

  /** Goes to the bank's 3-D Secure page (again): in this window, or in a new one as configured. */
  openRedirect(): void {
    this.#dispatch({ type: 'open-redirect' });
  }

  /**
   * Leaves the current order (it is not cancelled: it expires, or is paid after all) for a new attempt with the
   * next reference, and shows the form again. Does nothing while a create or the search for its lost answer
   * is under way: a new reference then could make a second order.
   */
  leave(): void {
    this.#dispatch({ type: 'leave' });
  }

  /** Asks for the order's status now; shares the request in flight. Resolves to the status envelope. */
  async checkNow(): Promise<Envelope<CashierStatusData>> {
    const reference = statusReferenceOf(this.#model);
    const answer = await this.#fetchStatus(reference);
    this.#dispatch({ type: 'checked', reference, answer });
    return answer.envelope;
  }

  /**
   * The kit's record shows an order of this checkout at `attempt`, made on another device (a payment link of this
   * checkout, opened on a phone): a page still showing the form looks it up and follows it. Anything else ignores it.
   * `seen`: the payer just came back to the page (an attempt found empty a moment ago is asked about again then).
   */
  followElsewhere(attempt: number, seen = false): void {
    this.#dispatch({ type: 'elsewhere', attempt, seen });
  }

  /** A view's own passing message (the code was copied). */
  note(message: Message): void {
    this.#dispatch({ type: 'note', message });
  }

  /**
   * Fields the payer types in an isolated frame (`svc-checkout/isolated-fields` mounts one): until `detach()`, the
   * form takes their state from the frame's reports, and a create or a code that needs their values is sent through
   * the frame, which adds them. The last frame attached is the one heard.
   */
  isolate(fields: IsolatedFields): IsolatedLink {
    this.#isolated = fields;
    this.#dispatch({ type: 'isolated', report: fields.report });
    void this.#bind(fields);
    return {
      report: (report, edited) => {
        if (this.#isolated === fields) this.#dispatch({ type: 'isolated', report, edited });
      },
      failed: (reason) => {
        if (this.#isolated === fields) this.#dispatch({ type: 'isolated-failed', reason });
      },
      detach: () => {
        if (this.#unbound === fields) this.#unbound = undefined;
        if (this.#isolated !== fields) return;
        this.#isolated = undefined;
        this.#dispatch({ type: 'isolated', report: undefined });
      },
    };
  }

  // ---------------------------------------------------------------------------------------------------------
  // The machine

  /** Every change goes through here: the transition, what is derived from the model, then the effects. */
  #dispatch(input: Input): void {
    if (this.#disposed) return;
    const before = this.#model;
    const { model, effects } = transition(before, { ...input, at: this.#env.now() } as MachineEvent);
    if (model === before && effects.length === 0) return;
    this.#model = model;
    this.#counts.transitions++;
    if (model.check !== before.check) this.#counts.checks++;
    this.#persist();
    this.#keepTicking();
    this.#keepWatchingLeft();
    // A frame attached before the session knew its configuration is given its proof once it does.
    if (this.#unbound && model.config) void this.#bind(this.#unbound);
    if (model.state !== before.state) for (const listener of [...this.#stateListeners]) listener(model.state);
    for (const effect of effects) this.#run(effect);
    if (!this.#model.request) for (const resolve of this.#idle.splice(0)) resolve();
  }

  #run(effect: Effect): void {
    const env = this.#env;
    switch (effect.type) {
      // A status request already on its way asked before a create or a code could change the order: not shared after it.
      case 'post':
        if (effect.call !== 'status') this.#statusRequest = undefined;
        void this.#post(effect);
        return;
      case 'post-isolated':
        this.#statusRequest = undefined;
        void this.#postIsolated(effect);
        return;
      case 'follow':
        this.#follower.start({ expiresAt: effect.expiresAt, checkFirst: effect.checkFirst });
        return;
      case 'unfollow':
        this.#follower.stop();
        return;
      case 'retime':
        this.#follower.retime(effect.expiresAt);
        return;
      case 'check-status':
        void this.#follower.checkNow();
        return;
      case 'connect':
        this.#follower.connect();
        this.#stopReturns = env.onReturn?.(() => this.#dispatch({ type: 'returned' }));
        return;
      case 'disconnect':
        this.#follower.disconnect();
        this.#stopReturns?.();
        this.#stopReturns = undefined;
        return;
      case 'emit':
        this.#emit(effect.event);
        return;
      case 'hold-redirect':
        void this.#holdRedirect(effect.detail);
        return;
      case 'navigate':
        env.navigate(effect.url);
        return;
      case 'open-window':
        this.#dispatch({ type: 'window-opened', blocked: !env.openWindow(effect.url) });
        return;
      case 'log':
        env.log(effect.message);
    }
  }

  /** What survives a reload, written whenever it changes. */
  #persist(): void {
    const saved = savedOf(this.#model);
    const key = this.#model.key;
    if (!saved || !key) return;
    const text = `${key}\n${JSON.stringify(saved)}`;
    if (text === this.#written) return;
    this.#written = text;
    try {
      this.#env.storage?.setItem(key, JSON.stringify(saved));
    } catch {
      // Storage full or disabled: the payment still works, it only cannot be resumed after a reload.
    }
  }

  /** The resend countdown: a tick each second while a wait runs and the host is on screen. */
  #keepTicking(): void {
    const left = this.#model.resendAllowedAt - this.#env.now();
    if (this.#model.active && left > 0) {
      this.#ticker ??= this.#env.timers.setTimeout(() => {
        this.#ticker = undefined;
        this.#dispatch({ type: 'tick' });
      }, left % 1000 || 1000);
    } else if (this.#ticker !== undefined) {
      this.#env.timers.clearTimeout(this.#ticker);
      this.#ticker = undefined;
    }
  }

  /** Orders the payer left while pending are looked at now and then, while the host is on screen. */
  #keepWatchingLeft(): void {
    const { active, leftOrders } = this.#model;
    if (active && leftOrders.length > 0) {
      this.#leftWatch ??= this.#env.timers.setTimeout(() => {
        this.#leftWatch = undefined;
        for (const reference of this.#model.leftOrders) {
          this.#fetchStatus(reference).then(
            (answer) => this.#dispatch({ type: 'left-checked', reference, answer }),
            () => undefined,
          );
        }
        this.#keepWatchingLeft();
      }, LEFT_ORDERS_CHECK_INTERVALS * this.#pollInterval());
    } else if (this.#leftWatch !== undefined) {
      this.#env.timers.clearTimeout(this.#leftWatch);
      this.#leftWatch = undefined;
    }
  }

  #pollInterval(): number {
    const interval = this.#model.settings.pollInterval;
    return interval && interval > 0 ? interval : DEFAULT_POLL_INTERVAL_MS;
  }

  #whenIdle(): Promise<void> {
    return this.#model.request ? new Promise((resolve) => this.#idle.push(resolve)) : Promise.resolve();
  }

  #emit(event: CheckoutEvent): void {
    for (const listener of [...this.#eventListeners]) listener(event);
  }

  #client(): EndpointClient {
    const config = this.#model.config as CheckoutConfig;
    return new EndpointClient({
      endpoint: config.endpoint ?? '',
      checkoutToken: config.checkoutToken,
      credentials: this.#model.settings.credentials ?? 'same-origin',
      fetch: this.#env.fetch,
    });
  }

  async #post(effect: Extract<Effect, { type: 'post' }>): Promise<void> {
    try {
      const answer =
        effect.call === 'status'
          ? await this.#fetchStatus(effect.body['reference'] as string)
          : await this.#client().post(effect.call, effect.body, { orderToken: effect.orderToken });
      this.#dispatch({ type: 'answer', request: effect.request, answer });
    } catch (error) {
      this.#noAnswer(effect.request, error as Error);
    }
  }

  /**
   * Gives a bank account frame the create's proof as soon as there is one, so that it shows the payer what they pay
   * (and takes their keys from then on): the checkout token, or a ticket for the order the form would send. A ticket
   * the kit refuses (the shop's `authorize` refused the cart, a limit) leaves the fields shut, and says why.
   */
  async #bind(fields: IsolatedFields): Promise<void> {
    this.#unbound = undefined;
    if (!fields.bind || fields.report.fields.every((field) => field !== 'bankAccountNumber')) return;
    // Not configured yet: given its proof when the session is (#dispatch).
    if (!this.#model.config) return void (this.#unbound = fields);
    const checkoutToken = this.#model.config.checkoutToken;
    if (checkoutToken) return fields.bind({ checkoutToken });
    const body = checkOf(this.#model)?.withoutIsolated;
    if (!body) return;
    const answer = await this.#tickets.for(body as unknown as Record<string, unknown>).catch((error: Error) => error);
    if (this.#isolated !== fields) return;
    if (answer instanceof Error || 'refusal' in answer) {
      const why = answer instanceof Error ? answer.message : `${answer.refusal.envelope.code} ${answer.refusal.envelope.message}`;
      this.#dispatch({ type: 'isolated-failed', reason: `no ticket for the bank account details (${why})` });
      return;
    }
    fields.bind({ ticket: answer.ticket });
  }

  /**
   * A call through the isolated frame: it adds its fields' values, and posts with the proof to the kit itself. A create
   * without a checkout token carries a ticket, asked for first (once more if the kit says the one it carried was used).
   */
  async #postIsolated(effect: Extract<Effect, { type: 'post-isolated' }>): Promise<void> {
    const fields = this.#isolated;
    try {
      if (!fields) throw new EndpointError('NETWORK', `${effect.call}: the isolated fields are gone`);
      const checkoutToken = this.#model.config?.checkoutToken;
      let answer: EndpointAnswer<unknown>;
      if (effect.call !== 'create' || checkoutToken) {
        answer = await fields.send(effect.call, effect.body, { checkoutToken, orderToken: effect.orderToken });
      } else {
        answer = await this.#sendWithTicket(fields, effect.body, false);
        const reason = (answer.envelope.data as { reason?: unknown } | null)?.reason;
        if (answer.envelope.code === RESULT_ROLES.refused && (reason === 'used' || reason === 'expired')) answer = await this.#sendWithTicket(fields, effect.body, true);
      }
      this.#dispatch({ type: 'answer', request: effect.request, answer });
    } catch (error) {
      this.#noAnswer(effect.request, error as Error);
    }
  }

  #noAnswer(request: number, error: Error): void {
    if (neverAnswered(error)) this.#unanswered = request;
    this.#dispatch({ type: 'no-answer', request, failure: failureOf(error) });
  }

  async #sendWithTicket(fields: IsolatedFields, body: Record<string, unknown>, fresh: boolean): Promise<EndpointAnswer<unknown>> {
    const held = await this.#tickets.for(body, fresh);
    if ('refusal' in held) return held.refusal;
    fields.bind?.({ ticket: held.ticket });
    this.#tickets.used(held.ticket);
    return fields.send('create', body, { ticket: held.ticket });
  }

  /**
   * One status request at a time for the whole session: polls, lookups and `checkNow()` share it. The order's own
   * token proves it when the session has one; otherwise the checkout token covers the reference, and the answer
   * brings the order's token.
   */
  #fetchStatus(reference: string, signal?: AbortSignal): Promise<EndpointAnswer<CashierStatusData>> {
    if (this.#statusRequest?.reference === reference) return this.#statusRequest.promise;
    const call = statusCallOf(this.#model, reference);
    const promise = this.#client()
      .post<CashierStatusData>('status', call.body, { signal, orderToken: call.orderToken })
      .finally(() => {
        if (this.#statusRequest?.promise === promise) this.#statusRequest = undefined;
      });
    this.#statusRequest = { reference, promise };
    return promise;
  }

  /** The poller's check: the followed order's status, told to the machine; resolves to the status seen. */
  async #poll(signal: AbortSignal): Promise<PaymentStatus | undefined> {
    const order = orderOf(this.#model.state.phase);
    if (!order) return undefined;
    const answer = await this.#fetchStatus(order.reference, signal).catch(() => undefined);
    if (signal.aborted) return undefined;
    this.#dispatch({ type: 'polled', reference: order.reference, answer });
    const data = answer?.envelope.data;
    return answer && isSuccess(answer.envelope) && data && isPaymentStatus(data.status) ? data.status : undefined;
  }

  /** The followed order's status stream, proved as its status requests are; none when turned off. */
  #openStream(handlers: FollowerStreamHandlers): StatusStream | undefined {
    const model = this.#model;
    const order = orderOf(model.state.phase);
    const config = model.config;
    if (!order || !config || model.settings.liveStatus === false) return undefined;
    const orderToken = orderTokenFor(model, order.reference);
    const proof = orderToken ? { orderToken } : config.checkoutToken ? { checkoutToken: config.checkoutToken, reference: order.reference } : undefined;
    if (!proof) return undefined;
    const reference = order.reference;
    return openStatusStream({
      endpoint: config.endpoint ?? '',
      ...proof,
      // Proved by the order's own token, the kit's schedule says how long the order has left.
      ...(orderToken ? { onSchedule: (schedule: StreamSchedule) => this.#dispatch({ type: 'stream-schedule', reference, durationMs: schedule.durationMs }) } : {}),
      fetch: this.#env.fetch as unknown as StatusStreamFetch,
      timers: this.#env.timers,
      credentials: model.settings.credentials ?? 'same-origin',
      ...handlers,
    });
  }

  /** Tells listeners the payer is about to leave (they may hold it, or keep the payer here), then lets the machine decide. */
  async #holdRedirect(detail: { orderNo: string; reference: string; redirectUrl: string }): Promise<void> {
    const holds: Promise<unknown>[] = [];
    let prevented = false;
    this.#emit({
      type: 'before-redirect',
      detail,
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
    this.#dispatch({ type: 'redirect-decided', orderNo: detail.orderNo, go: !prevented });
  }
}
